//! The CSR sparse Jacobian in ADBench's BA layout.

use crate::ba::{BaInput, BLOCK_LEN, CAM_LEN};

/// A CSR matrix with ADBench's BA Jacobian layout: for observation `i < p`, rows
/// `2i` and `2i+1` hold 15 nonzeros (the 11 columns of camera `cam_i`, the 3
/// columns of point `pt_i`, the weight column `11n + 3m + i`); row `2p + i` holds
/// one nonzero `-2 w_i` in column `11n + 3m + i`. `nnz = 31p`.
///
/// ```
/// use nilang_adbench::{ba::BaInput, sparse::SparseJacobian};
/// let b = BaInput::parse("1 1 2\n0 0 0 0 0 0 1 0 0 0 0\n0 0 1\n1\n0 0").unwrap();
/// let mut j = SparseJacobian::with_layout(&b);
/// assert_eq!(j.rows, vec![0, 15, 30, 45, 60, 61, 62]);
/// j.fill_w(1, -2.0);
/// assert_eq!(j.get(5, 11 + 3 + 1), -2.0);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SparseJacobian {
    /// Number of rows, `3p`.
    pub nrows: usize,
    /// Number of columns, `11n + 3m + p`.
    pub ncols: usize,
    /// Row pointers, `nrows + 1` entries.
    pub rows: Vec<usize>,
    /// Column index of every nonzero.
    pub cols: Vec<usize>,
    /// Value of every nonzero.
    pub vals: Vec<f64>,
}

impl SparseJacobian {
    /// Builds `rows` and `cols` for instance `b` once; `vals` start at zero and are
    /// filled with [`fill_block`](Self::fill_block) and [`fill_w`](Self::fill_w)
    /// without allocating.
    pub fn with_layout(b: &BaInput) -> Self {
        let (n, m, p) = (b.n, b.m, b.p);
        let nnz = 31 * p;
        let mut rows = Vec::with_capacity(3 * p + 1);
        let mut cols = Vec::with_capacity(nnz);
        rows.push(0);
        let wcol0 = CAM_LEN * n + 3 * m;
        for (i, &(c, q)) in b.obs.iter().enumerate() {
            for _ in 0..2 {
                cols.extend(CAM_LEN * c..CAM_LEN * (c + 1));
                cols.extend(CAM_LEN * n + 3 * q..CAM_LEN * n + 3 * q + 3);
                cols.push(wcol0 + i);
                rows.push(cols.len());
            }
        }
        for i in 0..p {
            cols.push(wcol0 + i);
            rows.push(cols.len());
        }
        SparseJacobian {
            nrows: 3 * p,
            ncols: wcol0 + p,
            rows,
            cols,
            vals: vec![0.0; nnz],
        }
    }

    /// Number of stored nonzeros.
    pub fn nnz(&self) -> usize {
        self.vals.len()
    }

    /// Number of observations `p` this layout was built for.
    fn p(&self) -> usize {
        self.nrows / 3
    }

    /// Writes the 2x15 block of observation `i` (rows `2i`, `2i+1`).
    #[inline]
    pub fn fill_block(&mut self, i: usize, block: &[[f64; BLOCK_LEN]; 2]) {
        let start = 2 * BLOCK_LEN * i;
        self.vals[start..start + BLOCK_LEN].copy_from_slice(&block[0]);
        self.vals[start + BLOCK_LEN..start + 2 * BLOCK_LEN].copy_from_slice(&block[1]);
    }

    /// Writes the single value of weight row `2p + i` (`-2 w_i` for ADBench).
    #[inline]
    pub fn fill_w(&mut self, i: usize, value: f64) {
        let p = self.p();
        self.vals[2 * BLOCK_LEN * p + i] = value;
    }

    /// The entry at `(row, col)`, zero if not stored.
    pub fn get(&self, row: usize, col: usize) -> f64 {
        let range = self.rows[row]..self.rows[row + 1];
        self.cols[range.clone()]
            .iter()
            .position(|&c| c == col)
            .map_or(0.0, |k| self.vals[range.start + k])
    }

    /// The matrix as dense rows (for small instances and tests).
    pub fn to_dense(&self) -> Vec<Vec<f64>> {
        let mut out = vec![vec![0.0; self.ncols]; self.nrows];
        for (r, row) in out.iter_mut().enumerate() {
            for k in self.rows[r]..self.rows[r + 1] {
                row[self.cols[k]] += self.vals[k];
            }
        }
        out
    }
}
