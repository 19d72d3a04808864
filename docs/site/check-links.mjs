// The built site's link check: every internal link of every page leads to a file of the site, and a link with an
// anchor to an element with that id on its page (VitePress's own check, run by the build, knows pages, not anchors).
import fs from 'node:fs'
import path from 'node:path'

export function checkLinks(dist) {
  const pages = []
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(file)
      else if (entry.name.endsWith('.html')) pages.push(file)
    }
  }
  walk(dist)
  const ids = new Map()
  const idsOf = (file) => {
    if (!ids.has(file)) {
      const html = fs.readFileSync(file, 'utf8')
      ids.set(file, new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1])))
    }
    return ids.get(file)
  }
  const broken = []
  let checked = 0
  for (const page of pages) {
    const html = fs.readFileSync(page, 'utf8')
    for (const [, raw] of html.matchAll(/<a\s[^>]*?href="([^"]*)"/g)) {
      const href = raw.replace(/&amp;/g, '&')
      if (/^[a-z]+:/i.test(href) || href === '') continue
      checked++
      const [target, anchor] = href.split('#')
      let file = target === '' ? page
        : target.startsWith('/') ? path.join(dist, decodeURI(target)) : path.resolve(path.dirname(page), decodeURI(target))
      if (target.endsWith('/')) file = path.join(file, 'index.html')
      const where = path.relative(dist, page)
      if (!fs.existsSync(file) || fs.statSync(file).isDirectory()) {
        broken.push(`${where}: ${href} leads nowhere`)
      } else if (anchor && file.endsWith('.html') && !idsOf(file).has(decodeURIComponent(anchor))) {
        broken.push(`${where}: ${href} names no anchor of ${path.relative(dist, file)}`)
      }
    }
  }
  return { pages: pages.length, checked, broken }
}
