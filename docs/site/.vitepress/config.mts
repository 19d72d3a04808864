import { defineConfig } from 'vitepress'
import { fileURLToPath } from 'node:url'
import { repositoryFiles } from './repository-files.mjs'

// paths from this file, not from the directory the build is started in
const files = repositoryFiles(fileURLToPath(new URL('../../..', import.meta.url)))
const modules = fileURLToPath(new URL('../node_modules/', import.meta.url))
// the contributors' pages are on the site (the guide links to them) but not in its search: a user's search for
// "lease" should find the guide, not design decisions
const CONTRIBUTORS = ['CONTRIBUTING.md', 'docs/contract.md', 'docs/design.md', 'docs/pitfalls.md']

// The site is built from the Markdown where it lives in the repository (README.md, CHANGELOG.md, docs/): no copy to
// keep in step, and a link that works on the repository's pages works on the site. The build fails on a dead link.
export default defineConfig({
  title: 'Projections for Jakarta EE',
  description: 'Read models kept in step with JPA write models, on WildFly, Payara and GlassFish',
  srcDir: '../..',
  srcExclude: ['benchmarks/**', '**/node_modules/**', '**/target/**', 'docs/site/**', 'it-tests/**'],
  outDir: './dist',
  cacheDir: './.vitepress/cache',
  // the repository's README is the site's home page; same folder, so its relative links stay true
  rewrites: { 'README.md': 'index.md' },
  cleanUrls: false,
  lastUpdated: false,
  // the demo's and the console's addresses on the reader's own machine
  ignoreDeadLinks: 'localhostLinks',
  markdown: {
    // Markdown is the source of truth: text in angle brackets is text, never a Vue component
    html: false,
    config: (md) => {
      files.rewriteLinks(md)
      // with html off, a comment (the generated tables' markers) would show as text: a paragraph that is one goes
      md.core.ruler.push('drop-comments', (state) => {
        state.tokens = state.tokens.filter((token, i, all) => {
          const paragraph = token.type === 'inline' ? i : token.type === 'paragraph_open' ? i + 1
            : token.type === 'paragraph_close' ? i - 1 : -1
          return paragraph < 0 || !/^<!--[\s\S]*-->$/.test(all[paragraph]?.content ?? '')
        })
      })
    },
  },
  buildEnd: (site) => files.copyTo(site.outDir),
  vite: {
    resolve: {
      // the pages live above this folder, so imports from them would look for a node_modules the repository lacks
      alias: [{ find: /^vue(\/.*)?$/, replacement: modules + 'vue$1' }],
    },
  },
  themeConfig: {
    search: {
      provider: 'local',
      options: {
        _render: (src, env, md) => (CONTRIBUTORS.includes(env.relativePath) ? '' : md.render(src, env)),
      },
    },
    outline: { level: [2, 3] },
    nav: [
      { text: 'Guide', link: '/docs/guide/getting-started' },
      { text: 'Configuration', link: '/docs/guide/configuration' },
      { text: 'Operations', link: '/docs/guide/operations' },
      { text: 'Changelog', link: '/CHANGELOG' },
    ],
    sidebar: [
      {
        text: 'Start',
        items: [
          { text: 'What it is', link: '/' },
          { text: 'Getting started', link: '/docs/guide/getting-started' },
          { text: 'The demo', link: '/docs/guide/demo' },
          { text: 'How it works', link: '/docs/guide/how-it-works' },
          { text: 'Using the API', link: '/docs/guide/using' },
        ],
      },
      {
        text: 'Install',
        items: [
          { text: 'WildFly (layer and CLI)', link: '/docs/guide/install-wildfly' },
          { text: 'WildFly by Galleon', link: '/docs/install' },
          { text: 'Payara and GlassFish', link: '/docs/guide/payara-glassfish' },
          { text: 'EclipseLink', link: '/docs/guide/eclipselink' },
          { text: 'Compatibility', link: '/docs/guide/compatibility' },
        ],
      },
      {
        text: 'Reference',
        items: [
          { text: 'Configuration', link: '/docs/guide/configuration' },
          { text: 'Messages', link: '/docs/guide/messages' },
          { text: 'Guarantees and limits', link: '/docs/guide/guarantees' },
        ],
      },
      {
        text: 'Run it',
        items: [
          { text: 'Operations', link: '/docs/guide/operations' },
          { text: 'Troubleshooting', link: '/docs/guide/troubleshooting' },
          { text: 'Scaling out', link: '/docs/guide/scaling' },
          { text: 'How far one database goes', link: '/docs/scaling' },
          { text: 'Performance', link: '/docs/guide/performance' },
          { text: 'Benchmarks', link: '/docs/BENCHMARKS' },
          { text: 'Benchmarks: history', link: '/docs/benchmarks-history' },
          { text: 'Upgrading', link: '/docs/guide/upgrading' },
          { text: 'Changelog', link: '/CHANGELOG' },
        ],
      },
      {
        text: 'Contributors',
        collapsed: true,
        items: [
          { text: 'Contributing', link: '/CONTRIBUTING' },
          { text: 'The contract', link: '/docs/contract' },
          { text: 'Design decisions', link: '/docs/design' },
          { text: 'Pitfalls', link: '/docs/pitfalls' },
        ],
      },
    ],
  },
})
