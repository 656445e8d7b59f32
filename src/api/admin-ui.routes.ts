import type { Route } from '../http/types.js'
import { instanceStatsResponse, uiConfigResponse } from '../schemas/responses.js'
import { instanceStatsView } from '../read/instance-stats.js'
import { recordUiErrorSchema } from '../schemas/admin-ui.js'
import { maxStrategySegments } from '../schemas/shared.js'
import { serveStaticFile, staticFile } from '../http/static-files.js'
import { empty, json, type ApiDeps } from './deps.js'
import { parse } from './parse.js'
import { publicUrlFor } from './lookups.js'

// Unleash's admin UI flags that turn on what this server does and Unleash OSS hides by default:
// environment variants (served without Unleash 7's deprecation refusal), REGEX constraints and
// SEMVER_GTE/SEMVER_LTE. Every flag left out is false, as in Unleash 8.2 OSS.
const uiFlags = {
  enableLegacyVariants: true,
  regexConstraintOperator: true,
  semverGteConstraintOperators: true,
}

// Limits Unleash's UI reads that have no counterpart here (actions, signals, release templates): its defaults.
const unusedLimits = {
  actionSetActions: 10,
  actionSetsPerProject: 5,
  actionSetFilters: 5,
  actionSetFilterValues: 25,
  signalEndpoints: 5,
  signalTokensPerEndpoint: 5,
  releaseTemplates: 10,
}

// The web UI's icon, a flag; browsers ask for /favicon.ico whatever the page names, so both paths answer it.
const favicon = staticFile(
  'favicon.svg',
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#4b3fd1"/><path d="M10 6v21" stroke="#fff" stroke-width="2.5" stroke-linecap="round"/><path d="M11 7h13l-3.5 5 3.5 5H11z" fill="#f0b400"/></svg>',
  ),
)

// Routes only Unleash's own admin UI calls. GET /api/admin/ui-config is what it reads first (its strategy
// form crashes without it): it answers as Unleash OSS does, so that the UI offers what OSS offers and
// asks for no enterprise routes this server lacks (its project creation, change requests and groups
// stay in this server's own UI).
export const adminUiRoutes = (deps: ApiDeps, version: string): Route[] => [
  { method: 'GET', path: '/favicon.svg', access: 'public', handler: (req) => serveStaticFile(favicon, req) },
  { method: 'GET', path: '/favicon.ico', access: 'public', handler: (req) => serveStaticFile(favicon, req) },
  {
    method: 'GET',
    path: '/api/admin/ui-config',
    access: 'admin',
    docs: { summary: "The configuration Unleash's admin UI reads", responses: { 200: uiConfigResponse } },
    handler: (req) =>
      json({
        environment: 'Open Source',
        version,
        versionInfo: { current: { oss: version, enterprise: '' }, latest: {}, isLatest: true },
        unleashUrl: publicUrlFor(deps, req),
        baseUriPath: '',
        authenticationType: 'open-source',
        disablePasswordAuth: false,
        emailEnabled: false,
        maintenanceMode: false,
        maxSessionsCount: 0,
        prometheusAPIAvailable: false,
        impactMetrics: 'disabled',
        // The frontend API answers every origin (CORS).
        frontendApiOrigins: ['*'],
        resourceLimits: { ...unusedLimits, strategySegments: maxStrategySegments, ...deps.config.limits },
        unleashContext: {},
        storiesPageEnabled: false,
        flags: uiFlags,
      }),
  },
  {
    // The UI's error boundary reports a page that crashed; it is logged (as Unleash logs it) so that an
    // answer the UI could not read shows up in the server's log.
    method: 'POST',
    path: '/api/admin/record-ui-error',
    access: 'admin',
    body: true,
    docs: { summary: 'A crash of an admin UI page, for the log', body: recordUiErrorSchema, responses: { 204: null } },
    handler: (req) => {
      const input = parse(recordUiErrorSchema, req.body)
      deps.logger.warn('the admin UI reported a crashed page', { user: req.principal?.name, errorMessage: input.errorMessage, errorStack: input.errorStack?.slice(0, 2000) })
      return empty(204)
    },
  },
  {
    // The admin home's counts (Unleash lets any signed-in user read them).
    method: 'GET',
    path: '/api/admin/instance-admin/statistics',
    access: 'admin',
    docs: { summary: 'Counts of what this instance holds', responses: { 200: instanceStatsResponse } },
    handler: () =>
      json(
        instanceStatsView({
          instance: deps.reads.instance,
          projects: deps.reads.projects.values(),
          version,
          now: deps.clock(),
          lastLogin: (userId) => deps.activity.of(userId).seenAt,
          applications: deps.applications.list(),
        }),
      ),
  },
]
