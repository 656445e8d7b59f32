import t from 'tap'
import { initTokenScope, loadConfig } from '../src/config.js'

t.test('init client and frontend tokens take their scope from the prefix', async (t) => {
  t.same(initTokenScope('default:development.abc123'), { projects: ['default'], environment: 'development' })
  t.same(initTokenScope('*:production.abc'), { projects: ['*'], environment: 'production' })
  t.same(initTokenScope('[]:production.abc'), { projects: ['*'], environment: 'production' })
  t.same(initTokenScope('my.project:development.abc'), { projects: ['my.project'], environment: 'development' })
})

t.test('init tokens without a project:environment.secret form are refused, naming the entry', async (t) => {
  for (const bad of ['just-a-secret', 'default:development', 'default.secret', ':development.x', 'default:.x', 'default:development.']) {
    t.throws(
      () => loadConfig({ INIT_CLIENT_API_TOKENS: `default:development.ok,${bad}` }),
      { message: /INIT_CLIENT_API_TOKENS: entry 2 \(.*\) is not of the form project:environment\.secret/ },
      bad,
    )
  }
  t.throws(() => loadConfig({ INIT_FRONTEND_API_TOKENS: 'nope' }), { message: /INIT_FRONTEND_API_TOKENS: entry 1 \("nope"\)/ })
})

t.test('the refusal shows only the first characters of a long entry', async (t) => {
  const secret = 'a'.repeat(56)
  t.throws(() => loadConfig({ INIT_CLIENT_API_TOKENS: secret }), { message: /entry 1 \("aaaaaaaaaaaa…"\)/ })
})

t.test('resource limits default to Unleash\'s and are read from its variables', async (t) => {
  t.equal(loadConfig({}).limits.featureFlags, 5000)
  t.equal(loadConfig({ UNLEASH_FEATURE_FLAGS_LIMIT: '12000' }).limits.featureFlags, 12000)
  t.equal(loadConfig({ UNLEASH_CONSTRAINT_VALUES_LIMIT: '1000' }).limits.constraintValues, 1000)
  t.throws(() => loadConfig({ UNLEASH_SEGMENTS_LIMIT: 'many' }), /UNLEASH_SEGMENTS_LIMIT/)
})

t.test('METRICS_ALLOW takes addresses and networks and refuses anything else, naming the entry', async (t) => {
  t.same(loadConfig({ METRICS_ALLOW: '10.0.0.0/8, 192.0.2.7,fd00::/8' }).metricsAllow, ['10.0.0.0/8', '192.0.2.7', 'fd00::/8'])
  t.same(loadConfig({}).metricsAllow, [])
  for (const bad of ['10.0.0.0/33', 'example.org', '10.0.0.1/8/1', '::1/129']) {
    t.throws(() => loadConfig({ METRICS_ALLOW: bad }), { message: `METRICS_ALLOW: "${bad}" is not an IP address or network (address/bits)` }, bad)
  }
})

t.test('LMDB_MAP_SIZE takes bytes or a size with a unit, at least 1MB', async (t) => {
  t.equal(loadConfig({}).lmdbMapSize, undefined)
  t.equal(loadConfig({ LMDB_MAP_SIZE: '2GB' }).lmdbMapSize, 2 * 1024 ** 3)
  t.equal(loadConfig({ LMDB_MAP_SIZE: '512mb' }).lmdbMapSize, 512 * 1024 ** 2)
  t.equal(loadConfig({ LMDB_MAP_SIZE: '1048576' }).lmdbMapSize, 1048576)
  for (const bad of ['1KB', 'lots', '-1GB', '1.5GB']) t.throws(() => loadConfig({ LMDB_MAP_SIZE: bad }), /LMDB_MAP_SIZE must be a size of at least 1MB/, bad)
})

t.test('LOG_FORMAT and LOG_LEVEL take their listed values only', async (t) => {
  t.match(loadConfig({}), { logFormat: 'text', logLevel: 'info' })
  t.match(loadConfig({ LOG_FORMAT: 'json', LOG_LEVEL: 'WARN' }), { logFormat: 'json', logLevel: 'warn' })
  t.throws(() => loadConfig({ LOG_FORMAT: 'xml' }), /LOG_FORMAT must be text or json/)
  t.throws(() => loadConfig({ LOG_LEVEL: 'verbose' }), /LOG_LEVEL must be debug, info, warn or error/)
})

t.test("UNLEASH_URL's origin is the public origin; CSRF_ALLOWED_ORIGINS are origins", async (t) => {
  t.equal(loadConfig({}).publicOrigin, undefined, 'not set: the Host header decides')
  t.equal(loadConfig({ UNLEASH_URL: 'https://Flags.example.com:443/unleash/' }).publicOrigin, 'https://flags.example.com')
  t.equal(loadConfig({ UNLEASH_URL: 'http://10.0.0.5:4242' }).publicOrigin, 'http://10.0.0.5:4242')
  t.throws(() => loadConfig({ UNLEASH_URL: 'flags.example.com' }), { message: 'UNLEASH_URL must be an http or https URL, got "flags.example.com"' })
  t.same(loadConfig({ CSRF_ALLOWED_ORIGINS: 'https://admin.example.com, http://localhost:3000/' }).csrfAllowedOrigins, ['https://admin.example.com', 'http://localhost:3000'])
  t.same(loadConfig({}).csrfAllowedOrigins, [])
  for (const bad of ['admin.example.com', 'https://admin.example.com/ui', 'ftp://admin.example.com', 'https://user@admin.example.com']) {
    t.throws(() => loadConfig({ CSRF_ALLOWED_ORIGINS: bad }), { message: `CSRF_ALLOWED_ORIGINS: "${bad}" is not an origin (scheme://host[:port], http or https, no path)` }, bad)
  }
})

t.test('TRUST_PROXY says how many proxies in front add to X-Forwarded-For', async (t) => {
  t.equal(loadConfig({}).trustProxy, 0, 'none by default: the socket address is the client')
  t.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, 0)
  t.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, 1)
  t.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1)
  t.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2)
  for (const bad of ['yes', '-1', '10.0.0.0/8', '1.5']) {
    t.throws(() => loadConfig({ TRUST_PROXY: bad }), { message: `TRUST_PROXY must be true, false or the number of proxies in front, got "${bad}"` }, bad)
  }
})

t.test('STREAMING_MAX_BUFFERED_BYTES is 1 MiB unless given, in bytes', async (t) => {
  t.equal(loadConfig({}).streamingMaxBufferedBytes, 1048576)
  t.equal(loadConfig({ STREAMING_MAX_BUFFERED_BYTES: '65536' }).streamingMaxBufferedBytes, 65536)
  t.throws(() => loadConfig({ STREAMING_MAX_BUFFERED_BYTES: '1MB' }), /STREAMING_MAX_BUFFERED_BYTES must be a non-negative integer/)
})
