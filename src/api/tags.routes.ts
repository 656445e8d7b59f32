import { flagsCarryingTag, projectsUsingTagType } from '../domain/usage.js'
import { nameExists, notFound } from '../domain/errors.js'
import type { Feature } from '../domain/project-state.js'
import { tagTypeNotFound } from '../domain/tag-types.js'
import type { Request, Route } from '../http/types.js'
import { bulkTagsSchema, featureTagSchema, tagTypeSchema, updateFeatureTagsSchema, updateTagTypeSchema } from '../schemas/tags.js'
import type { ProjectCommandInput } from '../actors/dispatch.js'
import type { Tag } from '../schemas/shared.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { locateFeature } from './lookups.js'
import { parse } from './parse.js'
import { tagsResponse } from '../schemas/responses.js'

const tagsPath = '/api/admin/features/:featureName/tags'

const tagView = (t: { type: string; value: string }) => ({ value: t.value, type: t.type })

export const tagRoutes = (deps: ApiDeps): Route[] => {
  const tagType = (name: string) => {
    const found = deps.reads.instance.tagTypes.get(name)
    if (!found) throw tagTypeNotFound(name)
    return found
  }
  const feature = (name: string): Feature => {
    const found = locateFeature(deps, name)
    if (!found) throw notFound(`Could not find feature flag "${name}"`)
    return found
  }
  // The flag's project is known only here: check UPDATE_FEATURE in it (SEMANTICS 7.4).
  const writable = (req: Request): Feature => {
    const found = feature(req.params.featureName)
    req.authorize('UPDATE_FEATURE', found.project)
    return found
  }
  const tagsOf = (name: string) => ({ version: 1, tags: feature(name).tags.map(tagView) })
  // A tagging command, with the tags it adds created first when new (Unleash's tag-created), in one append.
  const tagging = (projectId: string, command: ProjectCommandInput, added: readonly Tag[]) =>
    deps.commands.together([{ projectId, command }], added.length > 0 ? [{ type: 'tags.ensure', tags: [...added], meta: command.meta }] : [], { instanceFirst: true })
  // Tags created on their own and those flags carry, each once, by type and value.
  const allTags = () => {
    const seen = new Map<string, { type: string; value: string }>()
    for (const tag of deps.reads.instance.tags.values()) seen.set(`${tag.type}\u0000${tag.value}`, tagView(tag))
    for (const project of deps.reads.projects.values()) {
      for (const f of project.features.values()) for (const t of f.tags) seen.set(`${t.type}\u0000${t.value}`, tagView(t))
    }
    return [...seen.values()].sort((a, b) => a.type.localeCompare(b.type) || a.value.localeCompare(b.value))
  }

  return [
    {
      method: 'GET',
      path: '/api/admin/tag-types',
      access: 'admin',
      handler: () => json({ version: 1, tagTypes: [...deps.reads.instance.tagTypes.values()].sort((a, b) => a.name.localeCompare(b.name)) }),
    },
    {
      method: 'POST',
      path: '/api/admin/tag-types',
      access: 'admin',
      permission: 'CREATE_TAG_TYPE',
      body: true,
      docs: { body: tagTypeSchema },
      handler: async (req) => {
        const input = parse(tagTypeSchema, req.body)
        await deps.commands.toInstance({ type: 'tagType.create', input, meta: metaOf(deps, req) })
        return { status: 201, body: tagType(input.name), headers: { location: `tag-types/${input.name}` } }
      },
    },
    {
      method: 'POST',
      path: '/api/admin/tag-types/validate',
      access: 'admin',
      body: true,
      docs: { body: tagTypeSchema },
      handler: (req) => {
        const input = parse(tagTypeSchema, req.body)
        if (deps.reads.instance.tagTypes.has(input.name)) throw nameExists(`There already exists a tag-type with the name ${input.name}`)
        return json({ valid: true, tagType: input })
      },
    },
    { method: 'GET', path: '/api/admin/tag-types/:name', access: 'admin', handler: (req) => json({ version: 1, tagType: tagType(req.params.name) }) },
    {
      method: 'PUT',
      path: '/api/admin/tag-types/:name',
      access: 'admin',
      permission: 'UPDATE_TAG_TYPE',
      body: true,
      docs: { body: updateTagTypeSchema },
      handler: async (req) => {
        const input = parse(updateTagTypeSchema, req.body)
        await deps.commands.toInstance({ type: 'tagType.update', name: req.params.name, input, meta: metaOf(deps, req) })
        return empty(200)
      },
    },
    {
      method: 'DELETE',
      path: '/api/admin/tag-types/:name',
      access: 'admin',
      permission: 'DELETE_TAG_TYPE',
      handler: async (req) => {
        const name = req.params.name
        tagType(name)
        // Unleash cascades: the type's tags leave every flag. One untagging command per project, then the type.
        for (const project of projectsUsingTagType(deps.reads.projects, name)) {
          await deps.commands.toProject(project, { type: 'tags.dropType', tagType: name, meta: metaOf(deps, req) })
        }
        const inUse = projectsUsingTagType(deps.reads.projects, name).length > 0
        await deps.commands.toInstance({ type: 'tagType.delete', name, inUse, meta: metaOf(deps, req) })
        return empty(200)
      },
    },
    {
      method: 'POST',
      path: '/api/admin/tags',
      access: 'admin',
      permission: 'UPDATE_FEATURE',
      body: true,
      docs: { body: featureTagSchema },
      handler: async (req) => {
        const tag = parse(featureTagSchema, req.body)
        const carried = flagsCarryingTag(deps.reads.projects, tag).length > 0
        await deps.commands.toInstance({ type: 'tag.create', tag, carried, meta: metaOf(deps, req) })
        return { status: 201, body: { version: 1, tag: tagView(tag) }, headers: { location: `tags/${tag.type}/${tag.value}` } }
      },
    },
    {
      method: 'DELETE',
      path: '/api/admin/tags/:type/:value',
      access: 'admin',
      permission: 'UPDATE_FEATURE',
      handler: async (req) => {
        const tag = { type: req.params.type, value: req.params.value }
        // Unleash deletes the tag and every flag's use of it: here in one append.
        const carrying = flagsCarryingTag(deps.reads.projects, tag)
        const meta = metaOf(deps, req)
        await deps.commands.together(
          carrying.map(({ projectId, features }) => ({
            projectId,
            command: { type: 'tags.bulkUpdate', features, changes: { added: [], removed: [tag] }, meta },
          })),
          [{ type: 'tag.delete', tag, carried: carrying.length > 0, meta }],
        )
        return empty(200)
      },
    },
    { method: 'GET', path: '/api/admin/tags', access: 'admin', handler: () => json({ version: 1, tags: allTags() }) },
    {
      // Unleash's tag picker lists the values of one type (an unknown type: 404, as GET /api/admin/tag-types/:name).
      method: 'GET',
      path: '/api/admin/tags/:type',
      access: 'admin',
      docs: { summary: 'The tags of one tag type', responses: { 200: tagsResponse } },
      handler: (req) => {
        const type = tagType(req.params.type).name
        return json({ version: 1, tags: allTags().filter((t) => t.type === type) })
      },
    },
    { method: 'GET', path: tagsPath, access: 'admin', handler: (req) => json(tagsOf(req.params.featureName)) },
    {
      method: 'POST',
      path: tagsPath,
      access: 'admin',
      body: true,
      docs: { body: featureTagSchema },
      handler: async (req) => {
        const found = writable(req)
        const tag = parse(featureTagSchema, req.body)
        await tagging(found.project, { type: 'tag.add', feature: found.name, tag, meta: metaOf(deps, req) }, [tag])
        return json(tagView(tag), 201)
      },
    },
    {
      method: 'PUT',
      path: tagsPath,
      access: 'admin',
      body: true,
      docs: { body: updateFeatureTagsSchema },
      handler: async (req) => {
        const found = writable(req)
        const body = parse(updateFeatureTagsSchema, req.body)
        const update = Array.isArray(body) ? { set: body } : { changes: { added: body.addedTags, removed: body.removedTags } }
        const added = Array.isArray(body) ? body : body.addedTags
        await tagging(found.project, { type: 'tags.update', feature: found.name, update, meta: metaOf(deps, req) }, added)
        return json(tagsOf(found.name))
      },
    },
    {
      method: 'DELETE',
      path: `${tagsPath}/:type/:value`,
      access: 'admin',
      handler: async (req) => {
        const found = writable(req)
        await deps.commands.toProject(found.project, {
          type: 'tag.remove',
          feature: found.name,
          tag: { type: req.params.type, value: req.params.value },
          meta: metaOf(deps, req),
        })
        return empty(200)
      },
    },
    {
      method: 'PUT',
      path: '/api/admin/projects/:projectId/tags',
      access: 'admin',
      permission: 'UPDATE_FEATURE',
      body: true,
      docs: { body: bulkTagsSchema },
      handler: async (req) => {
        const input = parse(bulkTagsSchema, req.body)
        const changes = { added: input.tags.addedTags, removed: input.tags.removedTags }
        const command = { type: 'tags.bulkUpdate' as const, features: input.features, changes, meta: metaOf(deps, req) }
        await tagging(req.params.projectId, command, changes.added)
        return empty(200)
      },
    },
  ]
}
