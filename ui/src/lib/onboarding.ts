// What a person needs to connect their first SDK to this server: the Node.js client, pointed here.
export const sdkSnippet = (origin: string, flag: string): string => `import { initialize } from 'unleash-client'

const unleash = initialize({
  url: '${origin}/api/',
  appName: 'my-app',
  customHeaders: { Authorization: process.env.UNLEASH_API_TOKEN },
})

unleash.on('synchronized', () => {
  console.log('${flag} is', unleash.isEnabled('${flag}') ? 'on' : 'off')
})`

export const curlCheck = (origin: string): string => `curl ${origin}/api/client/features --header "Authorization: $UNLEASH_API_TOKEN"`
