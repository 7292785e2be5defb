/** Paging bounds (docs/api.md, "Sorting and paging") and the engine's result window. */
export const paging = {
  limit: { min: 1, max: 1000, default: 25 },
  offset: { min: 0, default: 0 },
  includeTotalResults: { default: true },
  /** index.max_result_window of the indices: offset + limit may not pass it. */
  resultWindow: 10_000,
  /** At most this many groups in `filterGroups`, and this many values in one array. */
  maxGroups: 20,
  maxValues: 1000,
} as const;
