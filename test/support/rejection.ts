import { expect } from 'vitest';
import { ApiError } from '../../src/errors/catalogue.js';

/** The ApiError a promise rejects with; fails the test if it resolves or rejects otherwise. */
export async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}
