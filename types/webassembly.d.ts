/**
 * The part of the WebAssembly JavaScript API that Node provides and selection's dot-product
 * kernel uses (src/logic/selection/dot-kernel.ts). TypeScript ships these declarations only with the
 * DOM library, which a Node service should not pull in.
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: ArrayBufferView | ArrayBuffer);
  }
  class Instance {
    constructor(module: Module, imports?: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    readonly buffer: ArrayBuffer;
    grow(pages: number): number;
  }
}
