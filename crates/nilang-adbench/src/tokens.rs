//! A whitespace tokenizer that remembers positions, shared by the instance parsers.

use crate::error::AdbenchError;

/// Splits input on ASCII whitespace and turns tokens into typed values with
/// positioned errors.
pub(crate) struct Tokens<'a> {
    file: &'a str,
    src: &'a str,
    pos: usize,
    line: usize,
    line_start: usize,
    count: usize,
}

struct Tok<'a> {
    text: &'a str,
    line: usize,
    column: usize,
    index: usize,
}

impl<'a> Tokens<'a> {
    pub(crate) fn new(file: &'a str, src: &'a str) -> Self {
        Tokens {
            file,
            src,
            pos: 0,
            line: 1,
            line_start: 0,
            count: 0,
        }
    }

    pub(crate) fn file(&self) -> &'a str {
        self.file
    }

    /// Number of bytes not yet consumed (an upper bound for the tokens left, used
    /// to cap allocations driven by untrusted headers).
    pub(crate) fn remaining_bytes(&self) -> usize {
        self.src.len() - self.pos
    }

    fn skip_ws(&mut self) {
        let bytes = self.src.as_bytes();
        while self.pos < bytes.len() && bytes[self.pos].is_ascii_whitespace() {
            if bytes[self.pos] == b'\n' {
                self.line += 1;
                self.line_start = self.pos + 1;
            }
            self.pos += 1;
        }
    }

    fn next_tok(&mut self, expected: &dyn Fn() -> String) -> Result<Tok<'a>, AdbenchError> {
        self.skip_ws();
        let bytes = self.src.as_bytes();
        if self.pos >= bytes.len() {
            return Err(AdbenchError::UnexpectedEof {
                file: self.file.to_owned(),
                line: self.line,
                token: self.count + 1,
                expected: expected(),
            });
        }
        let start = self.pos;
        while self.pos < bytes.len() && !bytes[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        self.count += 1;
        Ok(Tok {
            // Token boundaries are ASCII whitespace, hence valid char boundaries.
            text: &self.src[start..self.pos],
            line: self.line,
            column: start - self.line_start + 1,
            index: self.count,
        })
    }

    fn error(&self, tok: &Tok<'_>, expected: String) -> AdbenchError {
        let mut found: String = tok.text.chars().take(40).collect();
        if found.len() < tok.text.len() {
            found.push('…');
        }
        AdbenchError::Parse {
            file: self.file.to_owned(),
            line: tok.line,
            column: tok.column,
            token: tok.index,
            expected,
            found,
        }
    }

    /// Next token as a finite `f64`; `what` describes the value for error messages.
    pub(crate) fn f64(&mut self, what: &dyn Fn() -> String) -> Result<f64, AdbenchError> {
        let expected = || format!("{} (a finite number)", what());
        let tok = self.next_tok(&expected)?;
        match tok.text.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(self.error(&tok, expected())),
        }
    }

    /// Next token as a positive integer (a header count): `0`, `-2`, `2.9`, `NaN` and `1e9`
    /// are errors naming the file, line, column and token.
    pub(crate) fn positive(&mut self, what: &dyn Fn() -> String) -> Result<usize, AdbenchError> {
        let expected = || format!("{} (a positive integer)", what());
        let tok = self.next_tok(&expected)?;
        match tok.text.parse::<usize>() {
            Ok(v) if v > 0 => Ok(v),
            _ => Err(self.error(&tok, expected())),
        }
    }

    /// Next token as a signed integer.
    pub(crate) fn i64(&mut self, what: &dyn Fn() -> String) -> Result<i64, AdbenchError> {
        let expected = || format!("{} (an integer)", what());
        let tok = self.next_tok(&expected)?;
        tok.text
            .parse::<i64>()
            .map_err(|_| self.error(&tok, expected()))
    }

    /// Reads `count` finite numbers into `out`, naming each as `what(j)`.
    pub(crate) fn f64s(
        &mut self,
        out: &mut Vec<f64>,
        count: usize,
        what: &dyn Fn(usize) -> String,
    ) -> Result<(), AdbenchError> {
        out.reserve(count.min(self.remaining_bytes() / 2 + 1));
        for j in 0..count {
            out.push(self.f64(&|| what(j))?);
        }
        Ok(())
    }

    /// Fails if any token is left.
    pub(crate) fn end(&mut self) -> Result<(), AdbenchError> {
        self.skip_ws();
        if self.pos < self.src.len() {
            let tok = self.next_tok(&String::new)?;
            return Err(self.error(
                &tok,
                "end of file (more data than the header announces)".into(),
            ));
        }
        Ok(())
    }
}

/// Fails with [`AdbenchError::TooLarge`] if an instance of `values` `f64`s plus `extra` bytes
/// exceeds `limit` bytes; checked before anything of that size is allocated.
pub(crate) fn check_size(
    file: &str,
    header: String,
    values: u128,
    extra: u128,
    limit: u64,
) -> Result<(), AdbenchError> {
    let bytes = values.saturating_mul(8).saturating_add(extra);
    if bytes > limit as u128 {
        return Err(AdbenchError::TooLarge {
            file: file.to_owned(),
            header,
            bytes,
            limit,
        });
    }
    Ok(())
}

/// `a * b` with an [`AdbenchError::Invalid`] on overflow.
pub(crate) fn checked_mul(
    file: &str,
    a: usize,
    b: usize,
    what: &str,
) -> Result<usize, AdbenchError> {
    a.checked_mul(b)
        .ok_or_else(|| AdbenchError::invalid(file, format!("{what} overflows ({a} * {b})")))
}
