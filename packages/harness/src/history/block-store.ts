import { closeSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where a sealed block lives: in memory, or at an offset of the spill file. */
type Stored = { readonly bytes: Uint8Array } | { readonly offset: number; readonly length: number };

/** Closes spill files whose store was collected (the file itself is unlinked as soon as it is opened). */
const spillFiles = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
});

/** Bytes of blocks a store keeps in memory by default before it spills the rest to disk. */
export const DEFAULT_MEMORY_BUDGET = 256 * 1024 * 1024;

/**
 * The sealed blocks of a binary history, in order. The first blocks stay in
 * memory up to a budget; later ones go to a temporary file (unlinked at
 * once, so it disappears with the process), so a run of any length holds
 * at most the budget of history in memory.
 */
export class BlockStore {
  readonly #blocks: Stored[] = [];
  readonly #budget: number;
  #inMemory = 0;
  #fd: number | null = null;
  #fileSize = 0;
  #bytes = 0;

  constructor(memoryBudget = DEFAULT_MEMORY_BUDGET) {
    this.#budget = memoryBudget;
  }

  get count(): number {
    return this.#blocks.length;
  }

  /** Bytes of all blocks. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Bytes of blocks spilled to disk. */
  get spilled(): number {
    return this.#fileSize;
  }

  add(block: Uint8Array): void {
    this.#bytes += block.length;
    if (this.#inMemory + block.length <= this.#budget) {
      this.#inMemory += block.length;
      this.#blocks.push({ bytes: block });
      return;
    }
    const fd = this.#spillFile();
    let written = 0;
    while (written < block.length) written += writeSync(fd, block, written, block.length - written, this.#fileSize + written);
    this.#blocks.push({ offset: this.#fileSize, length: block.length });
    this.#fileSize += block.length;
  }

  /** Block number `index`, read back from disk if it was spilled. */
  get(index: number): Uint8Array {
    const stored = this.#blocks[index];
    if (stored === undefined) throw new RangeError(`no history block ${index}`);
    if ("bytes" in stored) return stored.bytes;
    const bytes = new Uint8Array(stored.length);
    let read = 0;
    while (read < stored.length) {
      const n = readSync(this.#fd as number, bytes, read, stored.length - read, stored.offset + read);
      if (n === 0) throw new RangeError(`history spill file ends inside block ${index}`);
      read += n;
    }
    return bytes;
  }

  #spillFile(): number {
    if (this.#fd !== null) return this.#fd;
    const dir = mkdtempSync(join(tmpdir(), "kcsim-history-"));
    const file = join(dir, "blocks.bin");
    this.#fd = openSync(file, "w+");
    unlinkSync(file);
    rmSync(dir, { recursive: true, force: true });
    spillFiles.register(this, this.#fd);
    return this.#fd;
  }
}
