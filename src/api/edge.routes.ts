import { hashTokenSecret } from '../domain/api-tokens.js'
import type { Authenticator, Route } from '../http/types.js'
import { edgeValidateSchema } from '../schemas/client.js'
import { json, type ApiDeps } from './deps.js'
import { parse } from './parse.js'

// Unleash Edge checks its tokens here, with no Authorization header, and exits when none is valid.
// Only the token types Edge knows are ever answered: an unknown `type` has broken Edge before.
const edgeTokenTypes = new Set(['client', 'backend', 'frontend', 'admin'])

export const edgeRoutes = (deps: ApiDeps, auth: Authenticator): Route[] => [
  {
    method: 'POST',
    path: '/edge/validate',
    access: 'public',
    body: true,
    docs: { body: edgeValidateSchema },
    handler: (req) => {
      const input = parse(edgeValidateSchema, req.body)
      const tokens = []
      for (const secret of new Set(input.tokens)) {
        // The authenticator's answer decides validity (expiry, deleted projects); the stored token its shape.
        if (secret.startsWith('user:') || !auth.byToken(secret)) continue
        const token = deps.reads.instance.apiTokens.get(hashTokenSecret(secret))
        if (!token || !edgeTokenTypes.has(token.type)) continue
        // Edge sent the secret, so it may have it back: that is how Edge matches the answer to its tokens.
        tokens.push({ token: secret, type: token.type, environment: token.environment, projects: token.projects })
      }
      return json({ tokens })
    },
  },
]
