/** The Redis hash where workers share master records (name -> JSON list). */
export function mastersKey(redisPrefix: string): string {
  return `${redisPrefix}indexer:masters`;
}
