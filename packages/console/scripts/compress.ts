/**
 * After `vite build`: writes a gzip (`.gz`) and a Brotli (`.br`) copy beside each text asset of
 * dist/, so the daemon serves compressed bytes without compressing at request time (as nginx's
 * gzip_static does). Run by the package's `build` script.
 */
import fs from "node:fs"
import path from "node:path"
import zlib from "node:zlib"

const dist = path.join(import.meta.dirname, "..", "dist")
const compressible = /\.(?:js|css|html|svg|json|map|txt)$/

const walk = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    return entry.isDirectory() ? walk(file) : [file]
  })

for (const file of walk(dist).filter((f) => compressible.test(f))) {
  const bytes = fs.readFileSync(file)
  fs.writeFileSync(`${file}.gz`, zlib.gzipSync(bytes, { level: 9 }))
  fs.writeFileSync(
    `${file}.br`,
    zlib.brotliCompressSync(bytes, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length
      }
    })
  )
}
