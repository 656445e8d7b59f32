import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { DomainError } from '../domain/errors.js'
import { serveStaticFile, staticFile, type StaticFile } from '../http/static-files.js'
import type { Route } from '../http/types.js'
import { openApiDocument } from './openapi.js'

export const openApiJsonPath = '/docs/openapi.json'
export const openApiPagePath = '/docs/openapi'
const assetsPath = `${openApiPagePath}/assets`

// The static HTML answers carry a CSP without inline scripts, so Swagger UI starts from a file of its own.
const initScript = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: ${JSON.stringify(openApiJsonPath)}, dom_id: '#swagger-ui', deepLinking: true });
});
`

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Flagwright API</title>
<link rel="stylesheet" href="${assetsPath}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${assetsPath}/swagger-ui-bundle.js"></script>
<script src="${assetsPath}/openapi-init.js"></script>
</body>
</html>
`

// From the installed swagger-ui-dist, never a CDN; read once, at start.
const swaggerUiFiles = ['swagger-ui-bundle.js', 'swagger-ui.css']

const loadAssets = (): Map<string, StaticFile> => {
  const dir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
  const assets = new Map(swaggerUiFiles.map((name) => [name, staticFile(name, readFileSync(path.join(dir, name)))]))
  assets.set('openapi-init.js', staticFile('openapi-init.js', Buffer.from(initScript)))
  return assets
}

// The description covers `routes` and these routes themselves: pass the server's final route table.
export const openApiRoutes = (routes: Route[], version: string): Route[] => {
  const assets = loadAssets()
  const html = staticFile('index.html', Buffer.from(page))
  let document: Buffer | undefined
  const own: Route[] = [
    {
      method: 'GET',
      path: openApiJsonPath,
      access: 'public',
      docs: { summary: 'This OpenAPI 3.1 description' },
      handler: () => ({ status: 200, body: document, headers: { 'content-type': 'application/json; charset=utf-8' } }),
    },
    {
      method: 'GET',
      path: openApiPagePath,
      access: 'public',
      docs: { summary: 'A browsable page (Swagger UI) of this description' },
      handler: (req) => serveStaticFile(html, req),
    },
    {
      method: 'GET',
      path: `${assetsPath}/:file`,
      access: 'public',
      docs: { summary: "The page's scripts and styles" },
      handler: (req) => {
        const file = assets.get(req.params.file)
        if (!file) throw new DomainError('NotFoundError', `There is no asset named ${req.params.file.slice(0, 200)}.`)
        return serveStaticFile(file, req)
      },
    },
  ]
  document = Buffer.from(JSON.stringify(openApiDocument([...routes, ...own], version)))
  return own
}
