import { mkdirSync } from 'node:fs'
import { Dispatcher } from './actors/dispatch.js'
import { recover, snapshotEntries, snapshotFormat } from './actors/recovery.js'
import { Registry } from './actors/registry.js'
import { buildWorld } from './actors/world.js'
import { apiTokenRoutes } from './api/api-tokens.routes.js'
import { clientRoutes } from './api/client.routes.js'
import type { ApiDeps } from './api/deps.js'
import { environmentRoutes } from './api/environments.routes.js'
import { eventRoutes } from './api/events.routes.js'
import { featureRoutes } from './api/features.routes.js'
import { projectRoutes } from './api/projects.routes.js'
import { strategyRoutes } from './api/strategies.routes.js'
import { contextFieldRoutes } from './api/context-fields.routes.js'
import { dependencyRoutes } from './api/dependencies.routes.js'
import { frontendRoutes } from './api/frontend.routes.js'
import { playgroundRoutes } from './api/playground.routes.js'
import { segmentRoutes } from './api/segments.routes.js'
import { strategyTypeRoutes } from './api/strategy-types.routes.js'
import { variantRoutes } from './api/variants.routes.js'
import { accessRoutes } from './api/access.routes.js'
import { changeRequestRoutes, startChangeRequestScheduler } from './api/change-requests.routes.js'
import { patRoutes } from './api/pats.routes.js'
import { signupTokenRoutes } from './api/signup-tokens.routes.js'
import { userRoutes } from './api/users.routes.js'
import { Evaluators } from './read/evaluators.js'
import { bootstrap } from './bootstrap.js'
import type { Config } from './config.js'
import { isInstanceEvent } from './domain/instance.js'
import { RequestMetrics } from './http/request-metrics.js'
import { startHttpServer, type HttpServer } from './http/server.js'
import { prometheusRoutes } from './api/prometheus.routes.js'
import { ServedCounts } from './read/served-counts.js'
import { Applications } from './read/applications.js'
import { ClientFeatures } from './read/client-features.js'
import { ClientRevisions } from './read/client-revisions.js'
import { LastSeen } from './read/last-seen.js'
import { authenticator } from './read/tokens.js'
import { Sessions } from './read/sessions.js'
import { UserActivity } from './read/user-activity.js'
import { lockDataDir, type DataDirLock } from './store/data-dir-lock.js'
import { EventLog } from './store/log.js'
import { startPotentiallyStaleJob } from './actors/potentially-stale-job.js'
import { exportImportRoutes } from './api/export-import.routes.js'
import { favoriteRoutes } from './api/favorites.routes.js'
import { featureTypeRoutes } from './api/feature-types.routes.js'
import { lifecycleRoutes } from './api/lifecycle.routes.js'
import { projectOverviewRoutes } from './api/project-overview.routes.js'
import { tagRoutes } from './api/tags.routes.js'
import type { EventRecord } from './domain/events.js'
import { isOutsideClientPayload } from './domain/project-curation.js'
import { LifecycleStages } from './read/lifecycle-stages.js'
import { ProjectInsights } from './read/project-insights.js'

export interface RunningServer {
  port: number
  createdAdminToken?: string
  createdAdminPassword?: string
  replayed: number
  // The route table, for tests that walk every route.
  routes: { method: string; path: string; access: string; permission?: string | string[] }[]
  close(): Promise<void>
}

export interface ServerOptions {
  // Stamps every command and drives time windows and jobs; tests pass a fake one.
  clock?: () => Date
}

// Which committed events can change what SDKs are served.
const touchesClientPayload = (type: string) => (!isInstanceEvent(type) || type.startsWith('segment-')) && !isOutsideClientPayload(type)

export const startServer = async (config: Config, options: ServerOptions = {}): Promise<RunningServer> => {
  mkdirSync(config.dataDir, { recursive: true })
  const lock = await lockDataDir(config.dataDir)
  let http: HttpServer | undefined
  let log: EventLog | undefined
  const requests = new RequestMetrics()
  try {
    // The port before the data: a start that cannot listen must not have used up the one-time secrets.
    http = await startHttpServer({
      host: config.host,
      port: config.port,
      maxBodyBytes: config.maxBodyBytes,
      allowFallback: config.allowFallbackHttp,
      metrics: requests,
    })
    log = EventLog.open(config.dataDir)
    return await serveData(config, options, http, log, lock, requests)
  } catch (error) {
    http?.close()
    await log?.close()
    await lock.release()
    throw error
  }
}

const serveData = async (config: Config, options: ServerOptions, http: HttpServer, log: EventLog, lock: DataDirLock, requests: RequestMetrics): Promise<RunningServer> => {
  const recovered = recover(log)
  const registry = new Registry(recovered.instance, recovered.projects, recovered.lastId, recovered.changeRequests)
  const fatal = (error: unknown) => {
    console.error('fatal: a log commit failed; exiting so that the log is replayed on restart', error)
    process.exit(70)
  }
  const dispatcher = new Dispatcher(log, registry, () => buildWorld(registry), fatal)
  const clock = options.clock ?? (() => new Date())
  // Project overview figures: the log is read once here, then each commit is folded in.
  const insights = new ProjectInsights(clock)
  insights.apply(log.from(1) as Iterable<EventRecord>)
  dispatcher.onCommitted((records) => insights.apply(records))

  const clientRevisions = new ClientRevisions(recovered.lastId)
  let sinceSnapshot = recovered.replayed
  let snapshotting: Promise<void> | undefined
  let snapshotWrittenAt: Date | undefined
  const saveSnapshot = async () => {
    const entries = snapshotEntries(registry.committedInstance, registry.committedProjects, registry.committedChangeRequests, registry.lastCommittedId)
    sinceSnapshot = 0
    await log.saveSnapshots(snapshotFormat, entries)
    snapshotWrittenAt = clock()
  }
  dispatcher.onCommitted((records) => {
    clientRevisions.record(records, touchesClientPayload)
    sinceSnapshot += records.length
    if (sinceSnapshot >= config.snapshotEvery && !snapshotting) {
      snapshotting = saveSnapshot()
        .catch(fatal)
        .finally(() => {
          snapshotting = undefined
        })
    }
  })

  const readSource = {
    projects: () => registry.committedProjects,
    segments: () => registry.committedInstance.segments,
    revision: () => clientRevisions.version(),
  }
  const evaluators = new Evaluators(readSource)
  const sessions = new Sessions(log.side('sessions'))
  const deps: ApiDeps = {
    dispatcher,
    registry,
    log,
    clientFeatures: new ClientFeatures({ projects: readSource.projects, segments: readSource.segments, revisions: clientRevisions }),
    lastSeen: new LastSeen(log.side<string>('last-seen')),
    lifecycleStages: new LifecycleStages(log.side<string>('lifecycle-stages')),
    applications: new Applications(),
    sessions,
    activity: new UserActivity(log.side('user-activity')),
    served: new ServedCounts(),
    config,
    clock,
  }
  // Before bootstrap, so that the events it appends are counted.
  const metricsRoutes = prometheusRoutes(deps, { requests, snapshot: () => ({ eventsBehind: sinceSnapshot, writtenAt: snapshotWrittenAt }) })
  const { createdAdminToken, createdAdminPassword } = await bootstrap(config, registry, dispatcher)

  const routes = [
    ...clientRoutes(deps),
    ...projectRoutes(deps),
    ...featureRoutes(deps),
    ...strategyRoutes(deps),
    ...environmentRoutes(deps),
    ...apiTokenRoutes(deps),
    ...eventRoutes(deps),
    ...segmentRoutes(deps),
    ...strategyTypeRoutes(deps),
    ...contextFieldRoutes(deps),
    ...variantRoutes(deps),
    ...dependencyRoutes(deps),
    ...playgroundRoutes(deps, evaluators),
    ...frontendRoutes(deps, evaluators),
    ...userRoutes(deps),
    ...accessRoutes(deps),
    ...patRoutes(deps),
    ...signupTokenRoutes(deps),
    ...changeRequestRoutes(deps),
    ...tagRoutes(deps),
    ...featureTypeRoutes(deps),
    ...lifecycleRoutes(deps),
    ...favoriteRoutes(deps),
    ...projectOverviewRoutes(deps, insights),
    ...exportImportRoutes(deps),
    ...metricsRoutes,
  ]
  http.serve(
    routes,
    authenticator({
      instance: () => registry.committedInstance,
      project: (id) => registry.committedProjects.get(id),
      sessions,
    }),
  )
  const stopScheduler = startChangeRequestScheduler(deps, config.schedulerIntervalMs)
  const flushTimer = setInterval(() => void deps.lastSeen.flush().catch(fatal), config.metricsFlushMs)
  flushTimer.unref()
  const stagesTimer = setInterval(() => void deps.lifecycleStages.flush().catch(fatal), config.metricsFlushMs)
  stagesTimer.unref()
  const potentiallyStale = startPotentiallyStaleJob({ registry, dispatcher, clock, intervalMs: config.potentiallyStaleCheckMs })

  return {
    port: http.port,
    createdAdminToken,
    createdAdminPassword,
    replayed: recovered.replayed,
    routes: routes.map(({ method, path, access, permission }) => ({ method, path, access, permission })),
    close: async () => {
      http.close()
      clearInterval(flushTimer)
      stopScheduler()
      clearInterval(stagesTimer)
      await potentiallyStale.stop()
      await deps.lifecycleStages.flush()
      await snapshotting
      await deps.lastSeen.flush()
      await saveSnapshot()
      await log.close()
      await lock.release()
    },
  }
}
