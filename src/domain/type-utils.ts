// Omit over each member of a union, so a command union keeps its discriminant.
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never
