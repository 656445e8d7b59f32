import { randomUUID } from 'node:crypto'

// What unleash-client 6.12 (polling-fetcher.js, request.js) sends with its poll; minipass-fetch adds the
// Accept-Encoding that the gzip and 304 cases add here.
export const sdkPollHeaders = (clientToken: string, connectionId: string = randomUUID()): Record<string, string> => ({
  'User-Agent': 'bench-app',
  'unleash-appname': 'bench-app',
  'UNLEASH-INSTANCEID': 'bench-instance-1',
  'Unleash-Client-Spec': '5.2.0',
  'unleash-sdk': 'unleash-node-sdk:6.12.1',
  'unleash-connection-id': connectionId,
  'unleash-interval': '15000',
  Accept: '*/*',
  Authorization: clientToken,
})
