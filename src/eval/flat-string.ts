// A string that stays in memory for long, made one flat run of characters. V8 answers a concatenation
// of 13 characters or more with a tree of the parts, and keeps the tree until something reads the text:
// crypto.randomUUID() builds its 36 characters from 20 parts, 490 bytes of heap where the flat text
// takes 66 (a strategy keeps its id for as long as it lives).
// Reading a character (the earlier way) is not enough: optimised code may read it from the tree's first
// part without flattening, and a tree flattened in place keeps a 32-byte wrapper unless a young-generation
// collection outside incremental marking removes it. At 50,000 flags the compiled evaluator kept 45,875
// of its toggle heads as trees (issue 26). A JSON round trip always answers a new sequential string with
// the same text (lone surrogates included: JSON.stringify escapes them and JSON.parse restores them).
export const flat = (text: string): string => JSON.parse(JSON.stringify(text)) as string
