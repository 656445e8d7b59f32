import { loadConfig } from './config.js'
import { startServer } from './server.js'

const config = loadConfig()
const server = await startServer(config).catch((error: unknown) => {
  console.error(`could not start: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})
if (server.createdAdminToken) {
  console.log(`Created an admin API token (shown once; keep it): ${server.createdAdminToken}`)
  console.log(`Try: curl -H "Authorization: ${server.createdAdminToken}" http://${config.host}:${server.port}/api/admin/projects`)
}
if (server.createdAdminPassword) {
  console.log(`Created the user "${config.defaultAdminUsername}" with password (shown once): ${server.createdAdminPassword}`)
}
console.log(`listening on http://${config.host}:${server.port} (data in ${config.dataDir}, ${server.replayed} events replayed)`)

let stopping = false
const stop = (signal: string) => {
  if (stopping) return
  stopping = true
  console.log(`${signal}: writing snapshots and stopping`)
  server.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('error while stopping', error)
      process.exit(1)
    },
  )
}
process.on('SIGINT', () => stop('SIGINT'))
process.on('SIGTERM', () => stop('SIGTERM'))
