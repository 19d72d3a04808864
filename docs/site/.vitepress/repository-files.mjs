import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

/**
 * The guide links to files of the repository that are not pages (the CLI scripts, the alert rules, the library
 * application's sources): on the site each becomes a download under /files/, with the same path as in the
 * repository, so a link that works on the repository's pages works on the site too. A linked folder (the sample
 * applications) is copied whole, without build output, with an index.html listing its files. A link to a file that
 * does not exist is left alone, and the build's dead-link check names it. A link to the README leads to the home page.
 */
export function repositoryFiles(root) {
  const repository = path.resolve(root)
  const linked = new Set()
  return {
    rewriteLinks(md) {
      md.core.ruler.push('repository-files', (state) => {
        const page = state.env.relativePath
        if (!page) return
        for (const block of state.tokens) {
          for (const token of block.children ?? []) {
            if (token.type !== 'link_open') continue
            const href = token.attrGet('href')
            if (!href || /^[a-z]+:|^#|^\//i.test(href)) continue
            const [target, anchor] = href.split('#')
            if (!target) continue
            const file = path.resolve(repository, path.dirname(page), decodeURI(target))
            if (file === path.join(repository, 'README.md')) {
              token.attrSet('href', '/' + (anchor ? '#' + anchor : '')) // the README is the home page
              continue
            }
            if (/\.md$/.test(target)) continue
            if (!file.startsWith(repository + path.sep) || !fs.existsSync(file)) continue
            const relative = path.relative(repository, file).split(path.sep).join('/')
            linked.add(relative)
            if (fs.statSync(file).isDirectory()) {
              token.attrSet('href', '/files/' + relative + '/index.html')
              token.attrSet('target', '_self') // a plain page of ours, not one of the site's: VitePress leaves it be
            } else {
              token.attrSet('href', '/files/' + relative)
              token.attrSet('download', path.basename(relative))
            }
          }
        }
      })
    },
    copyTo(outDir) {
      for (const relative of linked) {
        const from = path.join(repository, relative)
        if (fs.statSync(from).isDirectory()) {
          copyFolder(from, relative, outDir)
        } else {
          copyFile(from, path.join(outDir, 'files', relative))
        }
      }
    },
  }
}

const NOT_SOURCE = new Set(['target', 'node_modules', '.git'])

function copyFile(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true })
  fs.copyFileSync(from, to)
}

/** The folder's files as Git tracks them (no build output, no IDE files); every file when it is no Git checkout. */
function filesOf(from) {
  try {
    return execFileSync('git', ['ls-files', '-z', '.'], { cwd: from, encoding: 'utf8' }).split('\0').filter(Boolean).sort()
  } catch {
    const listed = []
    const walk = (dir) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        if (NOT_SOURCE.has(entry.name)) continue
        const file = path.join(dir, entry.name)
        if (entry.isDirectory()) walk(file)
        else listed.push(path.relative(from, file).split(path.sep).join('/'))
      }
    }
    walk(from)
    return listed.sort()
  }
}

function copyFolder(from, relative, outDir) {
  const listed = filesOf(from)
  for (const inFolder of listed) {
    copyFile(path.join(from, inFolder), path.join(outDir, 'files', relative, inFolder))
  }
  const escape = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;')
  const items = listed.map((file) => `<li><a href="${encodeURI(file)}">${escape(file)}</a></li>`).join('\n')
  fs.writeFileSync(path.join(outDir, 'files', relative, 'index.html'),
    `<!doctype html><meta charset="utf-8"><title>${escape(relative)}</title>` +
    `<h1>${escape(relative)}</h1><p><a href="/">Projections for Jakarta EE</a></p><ul>\n${items}\n</ul>\n`)
}
