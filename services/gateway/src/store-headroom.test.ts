import { describe, expect, it } from 'vitest';
import { StoreFullError, StoreHeadroom, storeFullness } from './store-headroom.js';

const MiB = 1024 * 1024;

describe('storeFullness', () => {
  it.each([
    ['an empty store', 0, MiB, 5, false],
    ['94% used with 5% headroom', 0.94 * MiB, MiB, 5, false],
    ['exactly 95% used', 0.95 * MiB, MiB, 5, false],
    ['just past 95% used', 0.95 * MiB + 1, MiB, 5, true],
    ['a full store', MiB, MiB, 5, true],
    ['over its limit (limit lowered)', 2 * MiB, MiB, 5, true],
    ['no limit on the account', 10 * MiB, -1, 5, false],
    ['headroom 0 (the check turned off)', MiB, MiB, 0, false],
    ['20% headroom at 81% used', 0.81 * MiB, MiB, 20, true],
  ])('%s: refused %s', (_title, usedBytes, maxBytes, headroom, refused) => {
    expect(storeFullness({ usedBytes, maxBytes }, headroom) !== undefined).toBe(refused);
  });

  it('says what filled up, how full, and what to do', () => {
    const err = storeFullness({ usedBytes: 1_000_000, maxBytes: MiB }, 5);
    expect(err).toBeInstanceOf(StoreFullError);
    expect(err?.message).toMatch(/^JetStream storage is 95% full \(1000000 of 1048576 bytes\)/);
    expect(err?.message).toMatch(/Delete objects/);
    expect(err?.message).toMatch(/max_store.*max_file_store/);
    expect(err?.message).toMatch(/EVENTS_MAX_BYTES/);
  });
});

describe('StoreHeadroom', () => {
  it('asks JetStream again only once its answer is older than maxAgeMs', async () => {
    let clock = 0;
    let used = 0;
    let asked = 0;
    const headroom = new StoreHeadroom(
      async () => {
        asked++;
        return { usedBytes: used, maxBytes: 100 };
      },
      5,
      1000,
      () => clock,
    );
    await headroom.ensureRoom();
    used = 99;
    clock = 999;
    await headroom.ensureRoom();
    expect(asked).toBe(1);
    clock = 1000;
    await expect(headroom.ensureRoom()).rejects.toBeInstanceOf(StoreFullError);
    expect(asked).toBe(2);
  });
});
