// A string that stays in memory for long, made one flat run of characters. V8 answers a concatenation
// of 13 characters or more with a tree of the parts, and keeps the tree until something reads the text:
// crypto.randomUUID() builds its 36 characters from 20 parts, 490 bytes of heap where the flat text
// takes 66 (a strategy keeps its id for as long as it lives). Reading a character flattens the tree in
// place, and the collector then drops the parts.
export const flat = (text: string): string => {
  text.charCodeAt(0)
  return text
}
