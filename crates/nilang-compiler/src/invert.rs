//! Inversion: every statement has a syntactic inverse, computed at compile time.
use crate::ir::*;

/// The inverse of a statement sequence: reversed order, each statement inverted.
pub fn invert_block(stmts: &[Stmt]) -> Vec<Stmt> {
    stmts.iter().rev().map(invert_stmt).collect()
}

/// The inverse of one statement (with the same [`StmtId`]).
pub fn invert_stmt(s: &Stmt) -> Stmt {
    let kind = match &s.kind {
        StmtKind::Instr(i) => StmtKind::Instr(Instr {
            op: i.op.inverse(),
            ..i.clone()
        }),
        StmtKind::Call(c) => StmtKind::Call(Call {
            inverse: !c.inverse,
            ..c.clone()
        }),
        StmtKind::Alloc(a) => StmtKind::Dealloc(a.clone()),
        StmtKind::Dealloc(a) => StmtKind::Alloc(a.clone()),
        StmtKind::If {
            branches,
            otherwise,
        } => StmtKind::If {
            branches: branches
                .iter()
                .map(|b| Branch {
                    pre: b.post.clone(),
                    post: b.pre.clone(),
                    body: invert_block(&b.body),
                })
                .collect(),
            otherwise: otherwise.as_ref().map(|b| invert_block(b)),
        },
        StmtKind::While {
            pre,
            post,
            body,
            step,
            step_first,
        } => StmtKind::While {
            pre: post.clone(),
            post: pre.clone(),
            body: invert_block(body),
            step: invert_block(step),
            step_first: !step_first,
        },
        StmtKind::For { var, iter, body } => StmtKind::For {
            var: var.clone(),
            iter: iter.clone().reversed(),
            body: invert_block(body),
        },
        StmtKind::DoLoop {
            from,
            first,
            until,
            second,
        } => StmtKind::DoLoop {
            from: until.clone(),
            first: invert_block(first),
            until: from.clone(),
            second: invert_block(second),
        },
        StmtKind::Block(b) => StmtKind::Block(invert_block(b)),
        StmtKind::Seq(b) => StmtKind::Seq(invert_block(b)),
        StmtKind::Routine { body, undo } => StmtKind::Routine {
            body: invert_block(body),
            undo: !undo,
        },
        StmtKind::Safe(t) => StmtKind::Safe(t.clone()),
        // lowered before inversion
        StmtKind::Surface(x) => StmtKind::Surface(x.clone()),
        StmtKind::Fresh(p) => StmtKind::Fresh(p.clone()),
        StmtKind::Move { dst, src } => StmtKind::Move {
            dst: src.clone(),
            src: dst.clone(),
        },
        StmtKind::Stack { kind, stack, value } => StmtKind::Stack {
            kind: kind.inverse(),
            stack: stack.clone(),
            value: value.clone(),
        },
    };
    Stmt {
        id: s.id,
        kind,
        span: s.span,
        text: s.text.clone(),
        check: s.check,
    }
}
