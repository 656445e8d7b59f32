import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { CommitPipeline, type CommitStep } from './actors/commit-pipeline.js'
import { Dispatcher, indexKeysOf } from './actors/dispatch.js'
import { recover, snapshotEntries, snapshotFormat, type ReplayedReadModel } from './actors/recovery.js'
import { encodeEntries, servingPause } from './actors/snapshot-codec.js'
import { nextTurn } from './next-turn.js'
import { startUpLine } from './start-up-line.js'
import { Registry } from './actors/registry.js'
import { apiTokenRoutes } from './api/api-tokens.routes.js'
import { clientRoutes } from './api/client.routes.js'
import { edgeRoutes } from './api/edge.routes.js'
import type { ApiDeps } from './api/deps.js'
import { environmentRoutes } from './api/environments.routes.js'
import { eventRoutes } from './api/events.routes.js'
import { featureRoutes } from './api/features.routes.js'
import { projectRoutes } from './api/projects.routes.js'
import { strategyRoutes } from './api/strategies.routes.js'
import { contextFieldRoutes } from './api/context-fields.routes.js'
import { dependencyRoutes } from './api/dependencies.routes.js'
import { frontendRoutes } from './api/frontend.routes.js'
import { ofrepBulkAnswers, ofrepRoutes } from './api/ofrep.routes.js'
import { openApiRoutes } from './api/openapi.routes.js'
import { playgroundRoutes } from './api/playground.routes.js'
import { segmentRoutes } from './api/segments.routes.js'
import { strategyTypeRoutes } from './api/strategy-types.routes.js'
import { variantRoutes } from './api/variants.routes.js'
import { accessRoutes } from './api/access.routes.js'
import { changeRequestRoutes } from './api/change-requests.routes.js'
import { patRoutes } from './api/pats.routes.js'
import { signupTokenRoutes } from './api/signup-tokens.routes.js'
import { userRoutes } from './api/users.routes.js'
import { Evaluators } from './read/evaluators.js'
import { FrontendAnswers } from './read/frontend-answers.js'
import { bootstrap } from './bootstrap.js'
import type { Config } from './config.js'
import { isInstanceEvent } from './domain/instance.js'
import { emptyInstance } from './domain/instance-state.js'
import { setLimits } from './domain/limits.js'
import { noItems } from './domain/no-items.js'
import { RequestMetrics } from './http/request-metrics.js'
import { createLogger, everyAtMost, type Logger } from './logger.js'
import { startHttpServer, type HttpServer } from './http/server.js'
import { prometheusRoutes, type SnapshotAge } from './api/prometheus.routes.js'
import { ServedCounts } from './read/served-counts.js'
import { loadStaticFiles, staticRoutes } from './http/static-files.js'
import { Applications } from './read/applications.js'
import { FeatureUsage } from './read/feature-usage.js'
import { ClientDeltas } from './read/client-deltas.js'
import { ClientFeatures, plainBodiesCheckMs } from './read/client-features.js'
import { ClientStreams } from './read/client-streams.js'
import { ClientRevisions } from './read/client-revisions.js'
import { SeenTimes } from './read/seen-times.js'
import { authenticator } from './read/tokens.js'
import { Sessions } from './sign-in/sessions.js'
import { UserActivity } from './sign-in/user-activity.js'
import { FeatureSearchIndex } from './read/feature-search.js'
import { committedReads } from './actors/committed-reads.js'
import { lockDataDir, type DataDirLock } from './store/data-dir-lock.js'
import { openKeptFile, writeKeptFile } from './store/kept-file.js'
import { decodeSnapshotSet, encodeSnapshotSet, EventLog } from './store/log.js'
import { LogFollower, LogPublisher, logStreamNames, type StreamSettings } from './store/log-stream.js'
import { healthRoutes, replicaDetails, type Replication } from './api/health.routes.js'
import { forbidden } from './domain/errors.js'
import type { Route } from './http/types.js'
import { exportImportRoutes } from './api/export-import.routes.js'
import { clientMetricsRoutes } from './api/client-metrics.routes.js'
import { adminUiRoutes } from './api/admin-ui.routes.js'
import { personalDashboardRoutes } from './api/personal-dashboard.routes.js'
import { favoriteRoutes } from './api/favorites.routes.js'
import { featureTypeRoutes } from './api/feature-types.routes.js'
import { lifecycleRoutes } from './api/lifecycle.routes.js'
import { projectOverviewRoutes } from './api/project-overview.routes.js'
import { searchRoutes } from './api/search.routes.js'
import { tagRoutes } from './api/tags.routes.js'
import type { EventRecord } from './domain/events.js'
import { isOutsideClientPayload } from './domain/project-curation.js'
import { LifecycleStages } from './read/lifecycle-stages.js'
import { ProjectInsights, type ProjectInsightsSnapshot } from './read/project-insights.js'
import { glibcTrim, trimAfterFullCollections } from './native-heap.js'

// The first of these paths (relative to this file) that exists: this file runs from dist/src (a build)
// or from src/ (tests).
const firstExisting = (...relative: string[]): string | undefined =>
  relative.map((p) => fileURLToPath(new URL(p, import.meta.url))).find((file) => existsSync(file))

// The web UI that scripts/build.mjs bundles: dist/public beside dist/src, or the repository's dist/public.
const uiDir = () => firstExisting('../public/', '../dist/public/')

const packageVersion = (): string => {
  const file = firstExisting('../package.json', '../../package.json')
  return file ? ((JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '0.0.0') : '0.0.0'
}

export interface RunningServer {
  port: number
  createdAdminToken?: string
  createdAdminPassword?: string
  replayed: number
  // The route table, for tests that walk every route.
  routes: Pick<Route, 'method' | 'path' | 'access' | 'permission' | 'docs'>[]
  close(): Promise<void>
}

export interface ServerOptions {
  // Where replication news goes (connection lost, back, refused); the logger by default.
  say?: (line: string) => void
  // Where the server's lines go; by default one built from LOG_FORMAT and LOG_LEVEL.
  logger?: Logger
  // Stamps every command and drives time windows and jobs; tests pass a fake one.
  clock?: () => Date
}

// In the data directory: the SDK answers kept by a clean stop for the next start (store/kept-file.ts).
const keptAnswersFile = 'client-answers.kept'

// Which committed events can change what SDKs are served.
const touchesClientPayload = (type: string) => (!isInstanceEvent(type) || type.startsWith('segment-')) && !isOutsideClientPayload(type)

const insightsModel = (insights: ProjectInsights): ReplayedReadModel => ({
  key: 'insights',
  restore: (state) => insights.restore(state as ProjectInsightsSnapshot),
  apply: (record) => insights.apply([record as EventRecord]),
  snapshot: () => insights.snapshot(),
})

const revisionsModel = (revisions: ClientRevisions): ReplayedReadModel => ({
  key: 'clientRevisions',
  restore: (state) => revisions.restore(state),
  apply: (record) => revisions.record([record as EventRecord], touchesClientPayload),
  snapshot: () => revisions.snapshot(),
})

export const startServer = async (config: Config, options: ServerOptions = {}): Promise<RunningServer> => {
  setLimits(config.limits)
  const logger = options.logger ?? createLogger({ format: config.logFormat, level: config.logLevel })
  options = { ...options, logger, say: options.say ?? ((line) => logger.info(line)) }
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
      origins: { publicOrigin: config.publicOrigin, allowed: new Set(config.csrfAllowedOrigins) },
      trustProxy: config.trustProxy,
      metrics: requests,
      log: (message, error) => logger.error(message, error),
    })
    logger.info(`HTTP served by ${http.build.name} ${http.build.version} on Node ${process.version}`)
    log = EventLog.open(config.dataDir, { mapSize: config.lmdbMapSize })
    const serve = config.replication?.replica ? serveReplica : serveData
    return await serve(config, options, http, log, lock, requests)
  } catch (error) {
    await http?.close()
    await log?.close()
    await lock.release()
    throw error
  }
}

interface Core {
  registry: Registry
  dispatcher: Dispatcher
  log: EventLog
  clientRevisions: ClientRevisions
  clock: () => Date
  // The log position the state starts from (recovered, or the replica's first snapshot: 0).
  lastId: number
  requests: RequestMetrics
  logger: Logger
}

// Everything that answers requests, the same on a writer and on a read replica.
const readSide = (config: Config, { registry, dispatcher, log, clientRevisions, clock, lastId, requests, logger }: Core) => {
  const readSource = {
    projects: () => registry.committedProjects,
    segments: () => registry.committedInstance.segments,
    revision: () => clientRevisions.version(),
  }
  const evaluators = new Evaluators(readSource)
  const sessions = new Sessions(log.side('sessions'))
  const tokenSeen = new SeenTimes(log.side<string>('token-seen'))
  const auth = authenticator({
    instance: () => registry.committedInstance,
    project: (id) => registry.committedProjects.get(id),
    sessions,
    tokenSeen: (secretHash, at) => tokenSeen.record(secretHash, at),
  })
  const clientFeatures = new ClientFeatures({ projects: readSource.projects, segments: readSource.segments, revisions: clientRevisions })
  // The delta API answers from the last changes in memory: the tail of the log fills them at start-up.
  const deltaStart = Math.max(0, lastId - config.deltaEventsKept * 4)
  const clientDeltas = new ClientDeltas({ ...readSource, revisions: clientRevisions, clientFeatures }, config.deltaEventsKept, deltaStart)
  clientDeltas.record([...(log.from(deltaStart + 1) as Iterable<EventRecord>)].filter((r) => touchesClientPayload(r.type)))
  const clientStreams = new ClientStreams(clientDeltas, {
    maxConnections: config.streamingMaxConnections,
    heartbeatMs: config.streamingHeartbeatMs,
    tokenCheckMs: 1000,
    maxBufferedBytes: config.streamingMaxBufferedBytes,
    byToken: auth.byToken,
  })
  const featureSearch = new FeatureSearchIndex(readSource.projects)
  // Their places in the commit pipeline (commit-pipeline.ts).
  const steps: { deltas: CommitStep; streams: CommitStep; search: CommitStep } = {
    deltas: (records) => clientDeltas.record(records.filter((r) => touchesClientPayload(r.type))),
    streams: (records) => clientStreams.onCommitted(records),
    search: (records) => featureSearch.apply(records),
  }
  // A replica that restored a snapshot: the changes kept so far no longer lead to the state, and every
  // stream is brought up to it (a hydration where events would not do).
  const restarted = (position: number) => {
    clientDeltas.restart(position)
    clientStreams.onCommitted([])
    featureSearch.reset()
  }
  const deps: ApiDeps = {
    commands: dispatcher,
    reads: committedReads(registry),
    log,
    clientFeatures,
    clientDeltas,
    clientStreams,
    lastSeen: new SeenTimes(log.side<string>('last-seen')),
    tokenSeen,
    lifecycleStages: new LifecycleStages(log.side<string>('lifecycle-stages')),
    featureSearch,
    applications: new Applications(),
    usage: new FeatureUsage(clock),
    sessions,
    activity: new UserActivity(log.side('user-activity')),
    served: new ServedCounts(),
    logger,
    config,
    clock,
  }
  const frontendAnswers = new FrontendAnswers(evaluators)
  const ofrepAnswers = ofrepBulkAnswers(deps, evaluators)
  const routesWith = (insights: ProjectInsights, replication: Replication, snapshot: () => SnapshotAge): Route[] => {
    const routes = [
      ...healthRoutes({ replication }),
      ...prometheusRoutes(deps, {
        requests,
        snapshot,
        replication,
        streams: clientStreams,
        onCommitted: (listener) => dispatcher.onCommitted(listener),
        featureCount: () => {
          let count = 0
          for (const project of registry.committedProjects.values()) count += project.features.size
          return count
        },
      }),
      ...clientRoutes(deps),
      ...edgeRoutes(deps, auth),
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
      ...frontendRoutes(deps, frontendAnswers),
      ...ofrepRoutes(deps, evaluators, ofrepAnswers),
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
      ...searchRoutes(deps),
      ...exportImportRoutes(deps),
      ...clientMetricsRoutes(deps),
      ...adminUiRoutes(deps, packageVersion()),
      ...personalDashboardRoutes(deps, insights),
      ...staticRoutes(loadStaticFiles(uiDir() ?? '')),
    ]
    return [...routes, ...openApiRoutes(routes, packageVersion())]
  }
  // Metrics and stages are side data: a write that fails (a full disk) is retried at the next flush.
  const reportWriteFailure = (what: string) => (error: unknown) => logger.warn(`could not write ${what} to the data directory; retrying at the next flush`, { error: errorText(error) })
  const flushTimer = setInterval(() => {
    void deps.lastSeen.flush().catch(reportWriteFailure('last-seen times'))
    void deps.tokenSeen.flush().catch(reportWriteFailure('API token last-seen times'))
  }, config.metricsFlushMs)
  flushTimer.unref()
  const stagesTimer = setInterval(() => void deps.lifecycleStages.flush().catch(reportWriteFailure('lifecycle stages')), config.metricsFlushMs)
  stagesTimer.unref()
  // From a timer, so between requests: see EventLog.releaseReadPagesSoon.
  const pagesTimer =
    config.readPagesReleaseMs > 0
      ? setInterval(
          () => {
            const started = performance.now()
            void log.releaseReadPagesSoon().then(
              (released) => released && logger.debug('the data file is reopened: the pages writes and reads mapped are let go', { ms: Math.round((performance.now() - started) * 100) / 100 }),
              (error: unknown) => logger.error('could not reopen the data directory', undefined, { cause: errorText(error) }),
            )
          },
          config.readPagesReleaseMs,
        ).unref()
      : undefined
  const trim = config.nativeHeapTrimMs > 0 ? glibcTrim() : undefined
  const stopTrims = trim && trimAfterFullCollections(trim, config.nativeHeapTrimMs, (ms) => logger.debug('glibc heap trimmed after a full collection', { ms: Math.round(ms * 100) / 100 }))
  const keptAnswersTimer = setInterval(() => {
    const runs = clientFeatures.letDuePlainBodiesGo()
    if (runs > 0) logger.debug('plain client bodies no SDK asked for lately are let go', { runs })
    const answers = frontendAnswers.dropStale() + ofrepAnswers.dropStale()
    if (answers > 0) logger.debug('remembered frontend and OFREP answers of flags since changed are let go', { answers })
  }, plainBodiesCheckMs).unref()
  const close = async () => {
    clientStreams.close()
    clearInterval(flushTimer)
    clearInterval(stagesTimer)
    clearInterval(pagesTimer)
    clearInterval(keptAnswersTimer)
    stopTrims?.()
    await deps.lifecycleStages.flush()
    await deps.lastSeen.flush()
    await deps.tokenSeen.flush()
  }
  return { deps, routesWith, auth, close, restarted, steps }
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error))

const routeTable = (routes: Route[]) => routes.map(({ method, path, access, permission, docs }) => ({ method, path, access, permission, docs }))

const streamSettings = (config: Config, say: (line: string) => void): StreamSettings | undefined =>
  config.replication && { url: config.replication.natsUrl, names: logStreamNames(config.replication.stream), retainRecords: config.replication.retainRecords, say }

const serveData = async (config: Config, options: ServerOptions, http: HttpServer, log: EventLog, lock: DataDirLock, requests: RequestMetrics): Promise<RunningServer> => {
  const clock = options.clock ?? (() => new Date())
  const clientRevisions = new ClientRevisions()
  // Project overview figures: restored from the snapshot set with the actors, then each record after it.
  const insights = new ProjectInsights(clock)
  const readModels = [revisionsModel(clientRevisions), insightsModel(insights)]
  const recovered = recover(log, readModels)
  await log.releaseReadPages()
  let mark = performance.now()
  const marks: [string, number][] = []
  const phase = (name: string) => {
    marks.push([name, (performance.now() - mark) / 1000])
    mark = performance.now()
  }
  // A failed commit (a full disk) refuses that write with 503 and changes nothing; reads go on.
  const logger = options.logger!
  // A full disk fails every write until there is room: one line at once, then one every 10 s at most.
  const commitFailureLine = everyAtMost(10_000)
  let refusedWrites = 0
  const commitFailed = (error: unknown) => {
    refusedWrites++
    commitFailureLine(() => logger.error('a log commit failed; the write was refused with 503 and nothing changed', undefined, { cause: errorText(error), refusedSoFar: refusedWrites }))
  }
  // The actors, created from the recovered state; they take commands once the pipeline is there.
  const registry = new Registry(recovered, {
    log,
    indexKeysOf,
    clock,
    schedulerIntervalMs: config.schedulerIntervalMs,
    potentiallyStaleCheckMs: config.potentiallyStaleCheckMs,
    onCommitFailed: commitFailed,
    onError: (message, error) => logger.error(message, error),
  })
  const dispatcher = new Dispatcher(registry)
  phase('actors')

  const committedEntries = () =>
    snapshotEntries(registry.committedInstance, registry.committedProjects, registry.committedChangeRequests, registry.lastCommittedId, readModels)
  let sinceSnapshot = recovered.replayed
  let snapshotting: Promise<void> | undefined
  let snapshotWrittenAt: Date | undefined
  // While serving, the set is encoded in slices between which requests are served (sliced); at a stop, at once.
  const saveSnapshot = async (sliced: boolean) => {
    // Begun on a turn of its own, not in the one whose commit made it due (which served requests already).
    if (sliced) await nextTurn()
    const started = performance.now()
    const entries = committedEntries()
    sinceSnapshot = 0
    const set = log.snapshotSet(snapshotFormat)
    await encodeEntries(set, entries, sliced ? servingPause(log, set) : undefined)
    await log.writeSnapshotSet(set)
    snapshotWrittenAt = clock()
    logger.debug('snapshots written', { lastId: entries[0]?.lastId ?? 0, ms: Math.round(performance.now() - started), blobsWritten: set.blobsStored })
  }
  // A set costs in proportion to the flags (every project is encoded and written whole), so at least
  // half as many records as there are flags go by between two sets: each write's share of them stays
  // the same at any size (at 50,000 flags a set every 5,000 records took 100 µs of every flag creation),
  // and a replay after a crash stays under half a record per flag.
  const flagCount = () => {
    let count = 0
    for (const project of registry.committedProjects.values()) count += project.features.size
    return count
  }
  // The flags are counted when the records reach the last count's due point, not at every commit.
  let snapshotDueAt = config.snapshotEvery
  const snapshotWhenDue = () => {
    if (sinceSnapshot < snapshotDueAt || snapshotting) return
    snapshotDueAt = Math.max(config.snapshotEvery, Math.ceil(flagCount() / 2))
    if (sinceSnapshot < snapshotDueAt) return
    snapshotting = saveSnapshot(true)
      .catch((error: unknown) => logger.warn('could not write snapshots; the log replays further at the next start', { error: errorText(error) }))
      .finally(() => {
        snapshotting = undefined
      })
  }
  // A long replay is not repeated at the next start, even one after a crash.
  snapshotWhenDue()

  const settings = streamSettings(config, options.say!)
  const publisher =
    settings &&
    new LogPublisher(
      settings,
      { committedId: () => registry.lastCommittedId, get: (id) => log.get(id) },
      () => ({ lastId: registry.lastCommittedId, bytes: encodeSnapshotSet(snapshotFormat, committedEntries(), { get: (id) => log.snapshotBlob(id) }) }),
      config.replication!.snapshotEvery,
    )
  const replication: Replication = () => {
    const status = publisher?.status()
    return {
      role: 'writer',
      committedId: registry.lastCommittedId,
      ...(status && { publishedId: status.publishedId, natsConnected: status.connected, ...(status.refused && { refused: status.refused }) }),
    }
  }

  const side = readSide(config, { registry, dispatcher, log, clientRevisions, clock, lastId: recovered.lastId, requests, logger })
  phase('request side')
  // The SDK answers a clean stop kept, when nothing was written since: the first poll of each scope is
  // answered without a build (53 MB of JSON at 50,000 flags, and the compressed copies SDKs had asked for).
  const keptAnswers = path.join(config.dataDir, keptAnswersFile)
  const logPosition = () => `${log.lastId}:${log.hashOf(log.lastId) ?? ''}`
  const kept = openKeptFile(keptAnswers, logPosition())
  if (kept) side.deps.clientFeatures.takeBack(kept)
  phase('kept answers')
  // Before bootstrap, so that the events it appends are counted.
  const routes = side.routesWith(insights, replication, () => ({ eventsBehind: sinceSnapshot, writtenAt: snapshotWrittenAt }))
  registry.start(
    new CommitPipeline(
      {
        revisions: (records) => clientRevisions.record(records, touchesClientPayload),
        deltas: side.steps.deltas,
        streams: side.steps.streams,
        search: side.steps.search,
        insights: (records) => insights.apply(records),
        snapshots: (records) => {
          sinceSnapshot += records.length
          snapshotWhenDue()
        },
        ...(publisher && { replication: () => publisher.notify() }),
      },
      recovered.lastId,
    ),
  )
  const { createdAdminToken, createdAdminPassword } = await bootstrap(config, registry, dispatcher)
  phase('start and bootstrap')
  http.serve(routes, side.auth)
  logger.info(startUpLine(recovered, marks))
  // The flag search's index, built once serving has begun rather than on the admin UI's first list;
  // a little after, so that the first SDK polls after a start are not kept waiting behind it (1.6 s
  // at 50,000 flags on a busy machine), and in slices between which requests are served.
  const warming = setTimeout(() => void side.deps.featureSearch.warmInSlices(nextTurn), 2000).unref()
  publisher?.start()

  return {
    port: http.port,
    createdAdminToken,
    createdAdminPassword,
    replayed: recovered.replayed,
    routes: routeTable(routes),
    close: async () => {
      clearTimeout(warming)
      await http.close()
      // Commands and commits under way (a schedule's, a stale check's) end first; then the timers stop.
      await registry.stop()
      await publisher?.close()
      await side.close()
      await snapshotting
      await saveSnapshot(false)
      await writeKeptFile(keptAnswers, logPosition(), side.deps.clientFeatures.kept()).catch((error: unknown) => logger.warn('could not keep the SDK answers for the next start', { error: errorText(error) }))
      side.deps.clientFeatures.dropKept()
      await log.close()
      await lock.release()
    },
  }
}

// SDK reads only: a replica answers what SDKs and probes ask and names the writer for the rest. Signing
// in or up is refused too: a session made on a replica would work nowhere (sessions live on the writer).
const signInPaths = new Set(['/auth/simple/login', '/invite/:token/signup'])
const replicaServes = (route: Route) =>
  route.access === 'client' || route.access === 'frontend' || (route.access === 'public' && !signInPaths.has(route.path))

const serveReplica = async (config: Config, options: ServerOptions, http: HttpServer, log: EventLog, lock: DataDirLock, requests: RequestMetrics): Promise<RunningServer> => {
  const replicaOf = config.replication!
  if (log.lastId > 0) throw new Error(`${config.dataDir} holds a writer's log: a read replica needs a data directory of its own`)
  const say = options.say!
  const clock = options.clock ?? (() => new Date())
  const clientRevisions = new ClientRevisions()
  const readModels = [revisionsModel(clientRevisions)]
  // Actors without a log or timers: the writer's records and snapshots change their committed state.
  const registry = new Registry({ instance: emptyInstance(), projects: new Map(), changeRequests: new Map(), lastId: 0 }, { clock, onError: (message, error) => options.logger!.error(message, error) })
  const dispatcher = new Dispatcher(registry)
  const writer = replicaOf.writerUrl ? `the writer at ${replicaOf.writerUrl}` : `the writer publishing to ${replicaOf.natsUrl}`
  const refusal = forbidden(`This server is a read replica: it serves the client and frontend APIs only; send admin requests and changes to ${writer}.`)
  dispatcher.refuseWrites(refusal)

  let firstRestore: () => void = () => undefined
  const restoredOnce = new Promise<void>((resolve) => (firstRestore = resolve))
  const follower = new LogFollower(streamSettings(config, say)!, {
    appliedId: () => registry.lastCommittedId,
    restore: (bytes) => {
      const entries = decodeSnapshotSet(snapshotFormat, bytes, noItems)
      if (!entries || !dispatcher.restoreCommitted(entries, readModels)) return false
      side.restarted(registry.lastCommittedId)
      firstRestore()
      return true
    },
    apply: (records) => dispatcher.applyCommitted(records as EventRecord[]),
  })
  const replication: Replication = () => replicaDetails(follower.status(), replicaOf.maxLag, Date.now())
  const side = readSide(config, { registry, dispatcher, log, clientRevisions, clock, lastId: 0, requests, logger: options.logger! })
  registry.start(new CommitPipeline({ revisions: (records) => clientRevisions.record(records, touchesClientPayload), deltas: side.steps.deltas, streams: side.steps.streams, search: side.steps.search }))
  const insights = new ProjectInsights(clock)
  const routes = side.routesWith(insights, replication, () => ({ eventsBehind: 0, writtenAt: undefined })).map((route) =>
    replicaServes(route)
      ? route
      : {
          ...route,
          handler: () => {
            throw refusal
          },
        },
  )
  let closed = false
  follower.start()
  // Until the first snapshot is in, the HTTP layer answers 503: an empty flag list would be a lie.
  void restoredOnce.then(() => {
    if (!closed) http.serve(routes, side.auth)
  })

  return {
    port: http.port,
    replayed: 0,
    routes: routeTable(routes),
    close: async () => {
      closed = true
      await http.close()
      await follower.close()
      await registry.stop()
      await side.close()
      await log.close()
      await lock.release()
    },
  }
}
