import t from 'tap'
import { glibcVersion, loadUws, type UwsBuild } from '../../src/http/uws.js'
import { startTestServer } from '../helpers/server.js'

// The current build's Linux binaries need glibc 2.38 (and Node 20, 22, 24 or 25); elsewhere 20.30 serves.
// `.ci/run` runs this file on this machine's Node and again on Node 24 in a Debian 13 root.
const glibcAtLeast238 = (() => {
  const [major, minor] = glibcVersion().split('.').map(Number)
  return major > 2 || (major === 2 && minor >= 38)
})()
const currentAbi = ['115', '127', '137', '141'].includes(process.versions.modules)
const expected = glibcAtLeast238 && currentAbi ? '@btc-vision/uwebsockets.js 20.57.0' : '@trufflesuite/uws-js-unofficial 20.30.0-unofficial.0'

t.test(`the server says which native build serves: ${expected} on Node ${process.version}, glibc ${glibcVersion()}`, async (t) => {
  const server = await startTestServer(t, { mode: 'child' })
  t.match(server.output(), `HTTP served by ${expected} on Node ${process.version}`)
  const health = await fetch(`${server.baseUrl}/health`)
  t.equal(health.status, 200)
})

const fake = (name: string): UwsBuild => ({ name, version: '1.0.0', uws: {} as UwsBuild['uws'] })

t.test('the loader takes the first build that loads', async (t) => {
  const build = loadUws([
    () => {
      throw new Error('uws_linux_x64_137.node: version `GLIBC_2.38\' not found')
    },
    () => fake('second'),
  ])
  t.equal(build.name, 'second')
})

t.test('where no build loads, the error is one line naming Node, glibc and what works', async (t) => {
  const failing = (reason: string) => () => {
    throw new Error(`This version of uWS.js supports only ...\n\n${reason}`)
  }
  let message = ''
  try {
    loadUws([failing('missing GLIBC_2.38'), failing("Cannot find module 'uws_linux_x64_999.node'")])
  } catch (error) {
    message = (error as Error).message
  }
  t.notMatch(message, /\n/, 'one line')
  t.match(message, `No uWebSockets.js build loads on Node ${process.version}`)
  t.match(message, `glibc ${glibcVersion()}`)
  t.match(message, 'Use Node 24 on a platform with glibc 2.38 or newer, or Node 20 on an older one')
  t.match(message, "(missing GLIBC_2.38; Cannot find module 'uws_linux_x64_999.node')", 'each build says why it did not load')
})
