//! The typed error of the ADBench loaders.

use std::fmt;
use std::path::PathBuf;

/// Everything that can go wrong while loading ADBench instances or reference data.
///
/// Every variant names the file (or `<string>` for in-memory input) and, for parse
/// errors, the 1-based line, column and token index plus what was expected.
///
/// ```
/// use nilang_adbench::gmm::GmmInput;
/// let err = GmmInput::parse("2 3").unwrap_err();
/// assert!(err.to_string().contains("expected n"), "{err}");
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum AdbenchError {
    /// The file could not be read.
    Io {
        /// The path that was opened.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// A token was present but was not what the format requires (not a number,
    /// not finite, negative count, ...).
    Parse {
        /// File name, or `<string>`.
        file: String,
        /// 1-based line of the offending token.
        line: usize,
        /// 1-based column (in bytes) of the offending token.
        column: usize,
        /// 1-based index of the token in the whole file.
        token: usize,
        /// What the format requires at this position.
        expected: String,
        /// The token that was found.
        found: String,
    },
    /// The input ended before everything the header announced was read.
    UnexpectedEof {
        /// File name, or `<string>`.
        file: String,
        /// Line of the end of input (1-based).
        line: usize,
        /// 1-based index the missing token would have had.
        token: usize,
        /// What the format requires at this position.
        expected: String,
    },
    /// The numbers parsed but are inconsistent: bad counts, mismatched dimensions,
    /// trailing data, sizes that overflow.
    Invalid {
        /// File name, or `<string>`.
        file: String,
        /// A description of the inconsistency.
        message: String,
    },
    /// The header announces an instance larger than the size limit (checked before
    /// allocating; see [`crate::MAX_INSTANCE_BYTES`]).
    TooLarge {
        /// File name, or `<string>`.
        file: String,
        /// The header as read, e.g. `n=2 m=10 p=1000000000000`.
        header: String,
        /// Bytes the instance would take in memory.
        bytes: u128,
        /// The limit in bytes.
        limit: u64,
    },
    /// A reference JSON file does not have the expected structure.
    Json {
        /// File name.
        file: String,
        /// What is missing or malformed.
        message: String,
    },
    /// The shared data directory could not be located.
    DataNotFound {
        /// The directories that were tried.
        searched: Vec<PathBuf>,
    },
}

impl AdbenchError {
    pub(crate) fn invalid(file: &str, message: impl Into<String>) -> Self {
        AdbenchError::Invalid {
            file: file.to_owned(),
            message: message.into(),
        }
    }

    pub(crate) fn json(file: impl Into<String>, message: impl Into<String>) -> Self {
        AdbenchError::Json {
            file: file.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for AdbenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdbenchError::Io { path, source } => {
                write!(f, "{}: cannot read file: {source}", path.display())
            }
            AdbenchError::Parse {
                file,
                line,
                column,
                token,
                expected,
                found,
            } => write!(
                f,
                "{file}:{line}:{column} (token {token}): expected {expected}, found `{found}`"
            ),
            AdbenchError::UnexpectedEof {
                file,
                line,
                token,
                expected,
            } => write!(
                f,
                "{file}:{line} (token {token}): file is truncated: expected {expected}, found end of file"
            ),
            AdbenchError::Invalid { file, message } => write!(f, "{file}: invalid data: {message}"),
            AdbenchError::TooLarge {
                file,
                header,
                bytes,
                limit,
            } => write!(
                f,
                "{file} (header, tokens 1 to 3): `{header}` announces an instance of {bytes} bytes, more than the \
                 limit of {limit} bytes (use the `*_limited` readers for a larger limit)"
            ),
            AdbenchError::Json { file, message } => {
                write!(f, "{file}: unexpected JSON structure: {message}")
            }
            AdbenchError::DataNotFound { searched } => {
                write!(
                    f,
                    "shared data directory (containing `adbench/`) not found; set NILANG_DATA to \
                     the `shared/data` directory. Tried:"
                )?;
                for p in searched {
                    write!(f, " {}", p.display())?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for AdbenchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AdbenchError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Reads a whole file, mapping failures to [`AdbenchError::Io`].
pub(crate) fn read_to_string(path: &std::path::Path) -> Result<String, AdbenchError> {
    std::fs::read_to_string(path).map_err(|source| AdbenchError::Io {
        path: path.to_owned(),
        source,
    })
}

/// Each named array has its required length (`None`: the sizes overflow) and finite entries;
/// `sizes` names the sizes the lengths follow from (`"n=2, m=3"`), for the message.
pub(crate) fn check_arrays(
    file: &str,
    sizes: &str,
    arrays: &[(&str, &[f64], Option<usize>)],
) -> Result<(), AdbenchError> {
    for &(name, v, want) in arrays {
        if Some(v.len()) != want {
            return Err(AdbenchError::invalid(
                file,
                format!("{name} has length {} but {sizes} require {want:?}", v.len()),
            ));
        }
        if let Some(i) = v.iter().position(|e| !e.is_finite()) {
            return Err(AdbenchError::invalid(
                file,
                format!("{name}[{i}] = {} is not finite", v[i]),
            ));
        }
    }
    Ok(())
}
