/** Types of ./mutation-modules.mjs (read by stryker.config.mjs as plain JavaScript). */
export declare const mutationModules: Record<
  string,
  {
    mutate: string[];
    tests: string[];
    timeoutMS?: number;
    /** false: its tests are the unit tier's and need neither OpenSearch nor Redis. */
    servers?: false;
  }
>;
