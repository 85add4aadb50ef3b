//! The formatter's syntax tree: bpftrace's program shape with each node's source offsets (for
//! claiming layout) and literals as written.

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: E,
    pub lo: usize,
    pub hi: usize,
}

#[derive(Clone, Debug)]
pub enum E {
    /// An integer as written (`1e6`, `0x10`, `1_000`).
    Int(String),
    /// A string's decoded bytes (printed re-escaped).
    Str(Vec<u8>),
    Bool(bool),
    /// `$1`, `$#`, `$name`, `@name`, `@`, a builtin or identifier: printed as is.
    Name(String),
    MapAccess {
        map: String,
        key: Box<Expr>,
    },
    Call {
        name: String,
        args: Vec<Expr>,
    },
    /// `sizeof(...)`, `typeinfo(...)`, `typeof(...)`.
    TypeFn {
        name: &'static str,
        arg: Box<TypeArg>,
    },
    Offsetof {
        arg: Box<TypeArg>,
        fields: Vec<String>,
    },
    Comptime(Box<Expr>),
    Binop {
        op: &'static str,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Unop {
        op: &'static str,
        expr: Box<Expr>,
        post: bool,
    },
    /// `if c { } else { }` (branches are `Block`s) or `c ? a : b`.
    If {
        cond: Box<Expr>,
        then: Box<Expr>,
        els: Option<Box<Expr>>,
    },
    Field {
        expr: Box<Expr>,
        field: String,
    },
    Index {
        expr: Box<Expr>,
        index: Box<Expr>,
    },
    TupleIndex {
        expr: Box<Expr>,
        index: String,
    },
    Cast {
        ty: Box<TypeArg>,
        expr: Box<Expr>,
    },
    Tuple(Vec<Expr>),
    /// `(a = 1, b = 2)`: each element a `Named`.
    Record(Vec<Expr>),
    Named {
        name: String,
        expr: Box<Expr>,
    },
    /// A `fn` parameter: `$x : type`.
    Typed {
        var: String,
        ty: Box<TypeArg>,
    },
    Block(Block),
}

/// A type (`struct sock *`, `uint8[4]`) or an expression standing for its type.
#[derive(Clone, Debug)]
pub enum TypeArg {
    Type(Type),
    Expr(Expr),
    /// `typeof(expr)` where a type goes.
    TypeOf(Expr),
    /// `typeof(TYPE)`, kept as written: `typeof(x)` may name a type or a macro's argument.
    TypeOfType(Type),
}

/// A parsed type: its base name and the `*`/`[N]` suffixes in order.
#[derive(Clone, Debug)]
pub struct Type {
    pub base: String,
    pub suffixes: Vec<Suffix>,
}

#[derive(Clone, Debug)]
pub enum Suffix {
    Pointer,
    Array(u64),
}

#[derive(Clone, Debug)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    /// The value of a block ending in an expression without `;`.
    pub expr: Option<Box<Expr>>,
    pub lo: usize,
    pub hi: usize,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: S,
    pub lo: usize,
}

#[derive(Clone, Debug)]
pub enum S {
    Expr(Expr),
    /// `target = value`; a compound `target op= v` has `value` = `target op v`.
    Assign {
        target: Expr,
        value: Expr,
    },
    /// `let $x [: type] = value;` (value `None`: a declaration alone).
    Let {
        var: String,
        ty: Option<TypeArg>,
        value: Option<Expr>,
    },
    While {
        cond: Expr,
        body: Block,
    },
    Unroll {
        count: Expr,
        body: Block,
    },
    For {
        var: String,
        iter: ForIter,
        body: Block,
    },
    /// `break`, `continue`, `return [expr]`.
    Jump {
        word: &'static str,
        value: Option<Expr>,
    },
    Discard(Expr),
    Import(String),
    /// ply's `delete m[k]` (bpftrace's `delete(@m, k)` is a call).
    Delete(Expr),
}

#[derive(Clone, Debug)]
pub enum ForIter {
    Range(Expr, Expr),
    Map(String),
}

#[derive(Clone, Debug)]
pub struct Root {
    pub kind: R,
    pub lo: usize,
}

#[derive(Clone, Debug)]
pub enum R {
    /// A preprocessor line or a C definition, verbatim.
    C(String),
    Config(Vec<(String, ConfigValue)>),
    Import(String),
    MapDecl {
        name: String,
        kind: String,
        size: String,
    },
    Macro {
        name: String,
        args: Vec<Expr>,
        body: Block,
    },
    /// `fn name($a : type, ...) : type { ... }`; the parameters are `Typed`.
    Fn {
        name: String,
        args: Vec<Expr>,
        ret: TypeArg,
        body: Block,
    },
    Probe {
        points: Vec<String>,
        pred: Option<Expr>,
        body: Block,
    },
}

#[derive(Clone, Debug)]
pub enum ConfigValue {
    Bool(bool),
    Int(u64),
    Str(String),
}

#[derive(Clone, Debug)]
pub struct Program {
    /// The `#!` line, with its newline.
    pub header: Option<String>,
    pub items: Vec<Root>,
}
