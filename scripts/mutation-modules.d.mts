/** Types of ./mutation-modules.mjs (read by stryker.config.mjs as plain JavaScript). */
export declare const mutationModules: Record<string, { mutate: string[]; tests: string[] }>;
