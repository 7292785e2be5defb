/** Paging bounds (docs/api.md, "Sorting and paging") and the engine's result window. */
export const paging = {
  limit: { min: 1, max: 1000, default: 25 },
  offset: { min: 0, default: 0 },
  includeTotalResults: { default: true },
  /**
   * index.max_result_window of the indices: pages within it and before `walkFrom` use
   * from/size; deeper ones continue with search_after over a point in time (src/search/paging).
   */
  resultWindow: 10_000,
  /**
   * Pages at this offset or deeper are read from a point in time (src/search/paging) even
   * within the result window: a page after a remembered place is one search_after page,
   * where from/size collects every result before it again. Chosen from a sweep of offsets
   * (docs/decisions/deep-offsets.md, "The threshold").
   */
  walkFrom: 1_000,
  /** A deep page may walk at most this many results past the nearest remembered boundary. */
  maxWalk: 100_000,
  /** How long a deep-paging snapshot and its boundaries live after their last use. */
  deepPagingTtlSeconds: 600,
  /** How long a cursor (and its snapshot) lives after its page was served. */
  cursorTtlSeconds: 600,
  /** At most this many groups in `filterGroups`, and this many values in one array. */
  maxGroups: 20,
  maxValues: 1000,
} as const;
