import { describe, expect, it } from 'vitest';
import { parseJitLog } from '../bench/profile-jit';

// Lines as node 20's --trace-opt --trace-deopt writes them (cut from a real run of bench/jit-entry.ts).
const LOG = [
  '[marking 0x0f <JSFunction mainCall (sfi = 0x2a1)> for optimization to TURBOFAN, ConcurrencyMode::kConcurrent, reason: hot and stable]',
  '[completed compiling 0x0f <JSFunction mainCall (sfi = 0x2a1)> (target TURBOFAN) - took 0.013, 19.967, 0.045 ms]',
  '[bailout (kind: deopt-eager, reason: wrong map): begin. deoptimizing 0x0f <JSFunction mainCall (sfi = 0x2a1)>, 0x1 <Code TURBOFAN>, opt id 87, bytecode offset 115]',
  '[completed compiling 0x10 <JSFunction mainCall (sfi = 0x2a1)> (target TURBOFAN) OSR - took 0.014, 5.000, 1.000 ms]',
  '[completed compiling 0x11 <JSFunction reduce (sfi = 0x3b2)> (target TURBOFAN) - took 0.000, 10.000, 0.000 ms]',
  '[completed compiling 0x12 <JSFunction reduce (sfi = 0x4c3)> (target TURBOFAN) - took 0.000, 2.000, 0.000 ms]',
  '[completed compiling 0x13 <JSFunction  (sfi = 0x5d4)> (target TURBOFAN) - took 0.000, 1.000, 0.000 ms]',
  '[aborted optimizing 0x14 <JSFunction big (sfi = 0x6e5)> (target TURBOFAN) because: Bailed out due to dependency change - took 0.008, 221.408, 0.630 ms]',
].join('\n');

describe('bench/profile-jit parseJitLog', () => {
  it('sums TurboFan compiles per function (by SharedFunctionInfo: two functions named reduce stay two), and splits first compiles from recompiles', () => {
    const f = parseJitLog(LOG);
    expect(f.compiles).toBe(5);
    expect(f.compileMs).toBeCloseTo(20.025 + 6.014 + 10 + 2 + 1, 3);
    // mainCall's second compile (after its deopt) is the only recompile.
    expect(f.recompileMs).toBeCloseTo(6.014, 3);
    expect(f.firstMs).toBeCloseTo(f.compileMs - 6.014, 3);
    expect(f.deopts).toBe(1);
    expect(f.functions.map((x) => [x.name, x.compiles])).toEqual([
      ['mainCall', 2],
      ['reduce', 1],
      ['reduce', 1],
      ['(anonymous)', 1],
    ]);
  });

  it('an aborted compile is not a compile', () => {
    expect(parseJitLog(LOG).functions.some((x) => x.name === 'big')).toBe(false);
  });
});
