// State is never mutated: each event yields new objects, so a reference to an old state stays a true snapshot.
export const withEntry = <K, V>(map: ReadonlyMap<K, V>, key: K, value: V): Map<K, V> => new Map(map).set(key, value)

export const withoutEntry = <K, V>(map: ReadonlyMap<K, V>, key: K): Map<K, V> => {
  const next = new Map(map)
  next.delete(key)
  return next
}

export const updateEntry = <K, V>(map: ReadonlyMap<K, V>, key: K, update: (value: V) => V): Map<K, V> => {
  const current = map.get(key)
  return current === undefined ? new Map(map) : withEntry(map, key, update(current))
}
