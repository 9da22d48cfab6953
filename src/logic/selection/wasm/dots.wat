;; Dot products of one vector with every row of a matrix, four lanes at a time (WebAssembly SIMD).
;; Selection (src/selection/dot-kernel.ts) compares a request's meaning vector with every agent's
;; this way: about nine times faster than the same loop in JavaScript, which V8 does not vectorise.
;; `dots_many` does the same for several vectors in one pass over the matrix (a request and its
;; clauses): each row is loaded from memory once and stays in cache for every vector, so a
;; 5,000-row example matrix is streamed once per request instead of once per reading. Each
;; product is summed in exactly the order `dots` sums it, so the results are bit-identical.
;; Assembled into dots.wasm by `npm run build:wasm`; test/selection/dot-kernel.test.ts checks that
;; the two agree.
(module
  (memory (export "memory") 1)
  ;; out[i] = Σ_k query[k] · matrix[i · d + k] for i in [0, rows), as f32.
  ;; query, matrix and out are byte offsets; d (floats per row) must be a multiple of 8.
  (func (export "dots") (param $query i32) (param $matrix i32) (param $rows i32) (param $d i32) (param $out i32)
    (local $i i32) (local $k i32) (local $row i32) (local $acc v128) (local $bytes i32)
    (local.set $bytes (i32.shl (local.get $d) (i32.const 2)))
    (local.set $row (local.get $matrix))
    (block $done
      (loop $rows_loop
        (br_if $done (i32.ge_u (local.get $i) (local.get $rows)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $k (i32.const 0))
        (block $row_done
          (loop $lanes
            (br_if $row_done (i32.ge_u (local.get $k) (local.get $bytes)))
            (local.set $acc (f32x4.add (local.get $acc)
              (f32x4.mul (v128.load (i32.add (local.get $query) (local.get $k)))
                         (v128.load (i32.add (local.get $row) (local.get $k))))))
            (local.set $acc (f32x4.add (local.get $acc)
              (f32x4.mul (v128.load (i32.add (local.get $query) (i32.add (local.get $k) (i32.const 16))))
                         (v128.load (i32.add (local.get $row) (i32.add (local.get $k) (i32.const 16)))))))
            (local.set $k (i32.add (local.get $k) (i32.const 32)))
            (br $lanes)))
        (f32.store (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 2)))
          (f32.add (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
                   (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc)))))
        (local.set $row (i32.add (local.get $row) (local.get $bytes)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows_loop))))
  ;; out[v · rows + i] = Σ_k vectors[v · d + k] · matrix[i · d + k] for v in [0, n), i in [0, rows).
  (func (export "dots_many") (param $vectors i32) (param $n i32) (param $matrix i32) (param $rows i32) (param $d i32) (param $out i32)
    (local $i i32) (local $v i32) (local $k i32) (local $row i32) (local $query i32) (local $acc v128) (local $bytes i32)
    (local.set $bytes (i32.shl (local.get $d) (i32.const 2)))
    (local.set $row (local.get $matrix))
    (block $done
      (loop $rows_loop
        (br_if $done (i32.ge_u (local.get $i) (local.get $rows)))
        (local.set $v (i32.const 0))
        (local.set $query (local.get $vectors))
        (block $vectors_done
          (loop $vectors_loop
            (br_if $vectors_done (i32.ge_u (local.get $v) (local.get $n)))
            (local.set $acc (v128.const i32x4 0 0 0 0))
            (local.set $k (i32.const 0))
            (block $row_done
              (loop $lanes
                (br_if $row_done (i32.ge_u (local.get $k) (local.get $bytes)))
                (local.set $acc (f32x4.add (local.get $acc)
                  (f32x4.mul (v128.load (i32.add (local.get $query) (local.get $k)))
                             (v128.load (i32.add (local.get $row) (local.get $k))))))
                (local.set $acc (f32x4.add (local.get $acc)
                  (f32x4.mul (v128.load (i32.add (local.get $query) (i32.add (local.get $k) (i32.const 16))))
                             (v128.load (i32.add (local.get $row) (i32.add (local.get $k) (i32.const 16)))))))
                (local.set $k (i32.add (local.get $k) (i32.const 32)))
                (br $lanes)))
            (f32.store (i32.add (local.get $out) (i32.shl (i32.add (i32.mul (local.get $v) (local.get $rows)) (local.get $i)) (i32.const 2)))
              (f32.add (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
                       (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc)))))
            (local.set $query (i32.add (local.get $query) (local.get $bytes)))
            (local.set $v (i32.add (local.get $v) (i32.const 1)))
            (br $vectors_loop)))
        (local.set $row (i32.add (local.get $row) (local.get $bytes)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $rows_loop)))))
