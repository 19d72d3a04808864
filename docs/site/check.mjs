// The site's test, run by CI after the build: no broken internal link or anchor, and two pages in headless Chromium —
// the home page with its navigation and search, and the configuration reference — with a screenshot of each
// under screenshots/.
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { checkLinks } from './check-links.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const dist = path.join(here, 'dist')
const shots = path.join(here, 'screenshots')

function fail(message) {
  console.error('SITE CHECK FAILED: ' + message)
  process.exit(1)
}

const links = checkLinks(dist)
if (links.pages < 20) fail(`only ${links.pages} pages built`)
if (links.broken.length > 0) fail(`${links.broken.length} broken links:\n  ` + links.broken.join('\n  '))
console.log(`links: ${links.checked} internal links on ${links.pages} pages, none broken`)

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
  '.png': 'image/png', '.svg': 'image/svg+xml', '.woff2': 'font/woff2' }
const server = http.createServer((request, response) => {
  let file = path.join(dist, decodeURI(new URL(request.url, 'http://site').pathname))
  if (file.endsWith('/')) file = path.join(file, 'index.html')
  if (!file.startsWith(dist) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    response.writeHead(404).end()
    return
  }
  response.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' })
  fs.createReadStream(file).pipe(response)
})
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const site = `http://127.0.0.1:${server.address().port}`

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
})
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  const errors = []
  page.on('pageerror', (error) => errors.push(String(error)))
  // a script, style sheet, font or image of the site that does not load fails the check too
  page.on('requestfailed', (request) => errors.push(`${request.url()} failed: ${request.failure()?.errorText}`))
  page.on('response', (response) => {
    if (response.status() >= 400) errors.push(`${response.url()} answered ${response.status()}`)
  })
  fs.mkdirSync(shots, { recursive: true })

  await page.goto(site + '/')
  await page.getByRole('heading', { level: 1, name: /Projections for Jakarta EE/ }).first().waitFor()
  const sidebar = page.locator('.VPSidebar')
  for (const entry of ['Getting started', 'Configuration', 'Operations', 'Troubleshooting', 'Upgrading']) {
    if (await sidebar.getByRole('link', { name: entry, exact: true }).count() === 0) fail(`no "${entry}" in the navigation`)
  }
  // the search box finds a word of the guide and leads to its page
  await page.locator('.VPNavBarSearch button').click()
  await page.locator('.VPLocalSearchBox input').fill('lease')
  const results = page.locator('.VPLocalSearchBox .results li')
  await results.first().waitFor()
  const found = await results.count()
  const titles = (await results.locator('.titles').allInnerTexts()).map((title) => title.replace(/\s+/g, ' ').trim())
  console.log(`search: "lease" finds ${found} sections, the first "${titles[0]}"`)
  const contributors = titles.filter((title) => /Behaviour contract|Design decisions|Container and database pitfalls|Contributing/i.test(title))
  if (contributors.length > 0) fail(`the search finds contributors' pages: ${contributors.join('; ')}`)
  await page.screenshot({ path: path.join(shots, 'site-home-search.png') })
  await results.first().click()
  await page.waitForURL((url) => url.pathname !== '/')
  // the page, not the home page it came from: its own first heading
  const h1 = page.locator('.vp-doc h1').first()
  await page.waitForFunction(() => {
    const shown = document.querySelector('.vp-doc h1')
    return shown && !shown.textContent.includes('Projections for Jakarta EE')
  })
  const heading = (await h1.innerText()).replace(/[\s\u200b]+/g, ' ').trim()
  console.log(`search: its first result leads to ${new URL(page.url()).pathname}, "${heading}"`)

  await page.goto(site + '/docs/guide/configuration.html')
  await page.getByRole('heading', { level: 1 }).first().waitFor()
  const keys = await page.locator('.vp-doc table td code', { hasText: /^projection\.workers$/ }).count()
  if (keys === 0) fail('the configuration reference has no row for projection.workers')
  await page.screenshot({ path: path.join(shots, 'site-configuration.png'), fullPage: false })
  if (errors.length > 0) fail('errors in the pages: ' + errors.join('; '))
  console.log(`screenshots: ${shots}/site-home-search.png, site-configuration.png`)
} finally {
  await browser.close()
  server.close()
}
