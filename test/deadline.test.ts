/**
 * The request deadline (src/deadline.ts): its signal is made only when asked for, yet tells
 * the same story whenever it is asked: aborted once the time is up or the caller hung up, with
 * the reason; the HTTP layer's expiry callback runs when the time is up (first, before the
 * signal's listeners), never when the request was cancelled or released.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadline, DeadlineExceeded } from '../src/deadline.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Deadline', () => {
  it('calls back when the time is up, and a signal asked for afterwards is aborted', () => {
    const deadline = new Deadline({ totalMs: 1000, redisMs: 200 });
    const expired = vi.fn();
    deadline.whenExpired(expired);
    vi.advanceTimersByTime(999);
    expect(expired).not.toHaveBeenCalled();
    expect(deadline.expired).toBe(false);
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledTimes(1);
    expect(deadline.expired).toBe(true);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBeInstanceOf(DeadlineExceeded);
    expect((deadline.signal.reason as DeadlineExceeded).operation).toBe('the request');
  });

  it('calls back before the listeners of a signal asked for earlier', () => {
    const deadline = new Deadline({ totalMs: 50, redisMs: 50 });
    const order: string[] = [];
    deadline.signal.addEventListener('abort', () => order.push('signal'));
    deadline.whenExpired(() => order.push('callback'));
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(50);
    expect(order).toEqual(['callback', 'signal']);
  });

  it('aborts its signal even when the callback throws', () => {
    const deadline = new Deadline({ totalMs: 50, redisMs: 50 });
    const signal = deadline.signal;
    deadline.whenExpired(() => {
      throw new Error('a response that could not be written');
    });
    expect(() => vi.advanceTimersByTime(50)).toThrow('a response that could not be written');
    expect(signal.aborted).toBe(true);
  });

  it('a cancelled one aborts its signal with the reason and never calls back', () => {
    const deadline = new Deadline({ totalMs: 1000, redisMs: 200 });
    const expired = vi.fn();
    deadline.whenExpired(expired);
    deadline.cancel('a request whose caller hung up');
    expect(deadline.expired).toBe(true);
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as DeadlineExceeded).operation).toBe('a request whose caller hung up');
    vi.advanceTimersByTime(5000);
    expect(expired).not.toHaveBeenCalled();
  });

  it('expires without a callback, and a cancel after it keeps the first reason', () => {
    const deadline = new Deadline({ totalMs: 50, redisMs: 50 });
    vi.advanceTimersByTime(50);
    deadline.cancel('a request whose caller hung up');
    expect((deadline.signal.reason as DeadlineExceeded).operation).toBe('the request');
  });

  it('a released one does nothing more', () => {
    const deadline = new Deadline({ totalMs: 1000, redisMs: 200 });
    const expired = vi.fn();
    deadline.whenExpired(expired);
    const signal = deadline.signal;
    deadline.release();
    vi.advanceTimersByTime(5000);
    expect(expired).not.toHaveBeenCalled();
    expect(signal.aborted).toBe(false);
  });
});
