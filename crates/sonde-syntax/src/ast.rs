//! The abstract syntax tree: what the parser produces and the type checker reads.
//! Every node carries the byte span of its source text so diagnostics can point at it.

/// A half-open byte range `[lo, hi)` into the program text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Span {
    pub lo: u32,
    pub hi: u32,
}

impl Span {
    pub fn new(lo: usize, hi: usize) -> Span {
        Span { lo: lo as u32, hi: hi as u32 }
    }
    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { lo: self.lo.min(other.lo), hi: self.hi.max(other.hi) }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub probes: Vec<Probe>,
    /// bpftrace's `config = { name = value; ... }` block, in order.
    pub config: Vec<Setting>,
    /// bpftrace's map declarations, `let @name = lruhash(4096);`.
    pub map_decls: Vec<MapDecl>,
    /// bpftrace's script-level `struct NAME { ... }` and `enum [NAME] { ... }` definitions.
    pub types: Vec<TypeDecl>,
    /// bpftrace's functions, `fn name($a: int64, ...): int64 { ... }`, in the order written.
    pub funcs: Vec<FnDef>,
}

/// `fn NAME($p: TYPE, ...) [: TYPE] { body }`: a function probes call by name.
#[derive(Clone, Debug, PartialEq)]
pub struct FnDef {
    pub name: String,
    pub params: Vec<FnParam>,
    /// The type it returns; `None` for `void` or none written.
    pub ret: Option<TypeName>,
    pub body: Block,
    /// The `fn NAME(...)` head, where diagnostics about the whole function point.
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FnParam {
    /// Without the `$`.
    pub name: String,
    pub ty: TypeName,
    pub span: Span,
}

/// `let @name = KIND(SIZE);` at the top level: `hash`, `lruhash`, `percpuhash`, `percpulruhash`.
#[derive(Clone, Debug, PartialEq)]
pub struct MapDecl {
    /// With the `@`.
    pub name: String,
    pub kind: String,
    pub size: u64,
    pub span: Span,
}

/// One `name = value` of a `config` block; the value as written (quotes removed).
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    pub name: String,
    pub value: String,
    pub span: Span,
    pub value_span: Span,
}

/// `spec[, spec...] [/predicate/] { body }`
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub specs: Vec<ProbeSpec>,
    pub predicate: Option<Expr>,
    pub body: Block,
    pub span: Span,
}

/// One probe specification, split at the first `:` only; the provider parses the rest.
/// `tracepoint:syscalls:sys_enter_*` -> provider `tracepoint`, definition `syscalls:sys_enter_*`;
/// `BEGIN` -> provider `BEGIN`, definition ``.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeSpec {
    pub provider: String,
    pub definition: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// An expression evaluated for its effect: `printf(...)`, `exit()`.
    Expr(Expr),
    /// `target = value`, where target is a `Map` or a `Var` expression.
    Assign {
        target: Expr,
        value: Expr,
    },
    /// `target op= value`, and `target++` / `target--` (op Add/Sub, value 1).
    AssignOp {
        target: Expr,
        op: BinOp,
        value: Expr,
    },
    If {
        cond: Expr,
        then: Block,
        els: Option<Block>,
    },
    Return,
    /// `return value;` inside a `fn` (in a probe the value is evaluated and dropped).
    ReturnValue(Expr),
    /// `delete m[k]` (the expression is a `Map`).
    Delete(Expr),
    Block(Block),
    /// bpftrace's `let $name [: type] [= value]`: a variable of the enclosing block.
    Let {
        name: String,
        ty: Option<TypeName>,
        value: Option<Expr>,
    },
    /// `while (cond) { ... }`
    While {
        cond: Expr,
        body: Block,
    },
    /// `for ($var : start..end) { ... }` and `for ($var : @map) { ... }`.
    For {
        var: String,
        iter: ForIter,
        body: Block,
    },
    /// `unroll(N) { ... }`: the body N times.
    Unroll {
        count: Expr,
        body: Block,
    },
    Break,
    Continue,
    /// Statements of the enclosing block, not a block of their own: a macro call's body and the
    /// statement calling it (`let $x = f(1);` declares `$x` where it is written).
    Seq(Block),
}

impl Stmt {
    /// The statement's expressions and blocks, for passes that walk the whole tree.
    pub fn parts(&self) -> (Vec<&Expr>, Vec<&Block>) {
        match &self.kind {
            StmtKind::Expr(e) | StmtKind::Delete(e) | StmtKind::ReturnValue(e) => (vec![e], vec![]),
            StmtKind::Assign { target, value } | StmtKind::AssignOp { target, value, .. } => {
                (vec![target, value], vec![])
            }
            StmtKind::If { cond, then, els } => {
                (vec![cond], [Some(then), els.as_ref()].into_iter().flatten().collect())
            }
            StmtKind::Return | StmtKind::Break | StmtKind::Continue => (vec![], vec![]),
            StmtKind::Block(b) | StmtKind::Seq(b) => (vec![], vec![b]),
            StmtKind::Let { value, .. } => (value.iter().collect(), vec![]),
            StmtKind::While { cond, body } => (vec![cond], vec![body]),
            StmtKind::For { iter: ForIter::Range(a, b), body, .. } => (vec![a, b], vec![body]),
            StmtKind::For { iter: ForIter::Map(m), body, .. } => (vec![m], vec![body]),
            StmtKind::Unroll { count, body } => (vec![count], vec![body]),
        }
    }
}

/// What a `for` loop runs over.
#[derive(Clone, Debug, PartialEq)]
pub enum ForIter {
    /// `start..end`, end excluded.
    Range(Expr, Expr),
    /// `@map`: each element as `$kv.0` (key) and `$kv.1` (value).
    Map(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// Integer and character literals (`42`, `0x2a`, `052`, `'*'`).
    Int(u64),
    /// String literal with escapes already decoded.
    Str(Vec<u8>),
    /// A bare identifier: a built-in variable (`comm`, `arg0`, `args`, `retval`), or
    /// a map used without keys in a function argument (`clear(rx)`).
    Ident(String),
    /// `$name`
    Var(String),
    /// `@name[k1, k2]`, `@[k]`, `@name` (no keys) and ply's plain `name[k]`.
    /// `name` is as written, with the `@` when there is one (`@`, `@x`, `rx`).
    Map {
        name: String,
        keys: Vec<Expr>,
    },
    /// `name(args)`
    Call {
        name: String,
        args: Vec<Expr>,
    },
    Unary {
        op: UnOp,
        expr: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Ternary {
        cond: Box<Expr>,
        then: Box<Expr>,
        els: Box<Expr>,
    },
    Cast {
        ty: TypeName,
        expr: Box<Expr>,
    },
    /// `expr.field` (arrow false) or `expr->field` (arrow true).
    Member {
        expr: Box<Expr>,
        field: String,
        arrow: bool,
    },
    /// `expr[index]` on something that is not a map name.
    Index {
        expr: Box<Expr>,
        index: Box<Expr>,
    },
    /// bpftrace's tuple `(a, b, ...)`, two or more elements; `t.0` reads one (a `Member` named `0`).
    Tuple(Vec<Expr>),
    /// bpftrace's record `(a = 1, b = "x")`: a tuple whose elements have names (`r.a` reads one).
    Record(Vec<(String, Expr)>),
    /// A type as a function's argument: `sizeof(struct task_struct)`, `offsetof(struct x, f)`.
    TypeArg(TypeName),
    /// `++$a`, `$a--`, `@m[k]++` inside an expression: `target op= 1`, the value the old one
    /// (`post`) or the new one.
    Step {
        target: Box<Expr>,
        op: BinOp,
        post: bool,
    },
    /// bpftrace's block expression `{ stmts; value }`, and a macro's expansion with statements:
    /// the statements run where the expression is evaluated, then `value` is its value.
    Block {
        stmts: Vec<Stmt>,
        value: Box<Expr>,
    },
}

/// A type as written in a cast: `u64`, `unsigned long`, `struct task_struct *`, `char **`.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeName {
    /// The base type's words joined by one space: `unsigned long`, `struct task_struct`, `u8`.
    pub base: String,
    /// Number of `*` after the base.
    pub pointers: u8,
    /// A cast to an array, bpftrace's `(int8[8])x`: its length, 0 for `[]` (as long as the value
    /// is); `None` for any other type.
    pub array: Option<u64>,
    /// bpftrace's `typeof(EXPR)`: the expression's type (then `base` is `typeof`), with
    /// `pointers` more `*`. `typeof(TYPE)` is TYPE itself.
    pub of: Option<Box<Expr>>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
    /// `*x`
    Deref,
    /// `&x`
    AddrOf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Mul,
    Div,
    Mod,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    /// `&&`, short-circuit
    And,
    /// `||`, short-circuit
    Or,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        use BinOp::*;
        match self {
            Mul => "*",
            Div => "/",
            Mod => "%",
            Add => "+",
            Sub => "-",
            Shl => "<<",
            Shr => ">>",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            BitAnd => "&",
            BitXor => "^",
            BitOr => "|",
            And => "&&",
            Or => "||",
        }
    }
    pub fn is_comparison(self) -> bool {
        use BinOp::*;
        matches!(self, Lt | Le | Gt | Ge | Eq | Ne)
    }
}

impl std::fmt::Display for TypeName {
    /// As C writes it: `u64`, `struct task_struct *`, `char **`.
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.base)?;
        if self.pointers > 0 {
            write!(f, " {}", "*".repeat(self.pointers as usize))?;
        }
        match self.array {
            Some(0) => f.write_str("[]"),
            Some(n) => write!(f, "[{}]", n),
            None => Ok(()),
        }
    }
}

impl UnOp {
    pub fn symbol(self) -> &'static str {
        match self {
            UnOp::Neg => "-",
            UnOp::Not => "!",
            UnOp::BitNot => "~",
            UnOp::Deref => "*",
            UnOp::AddrOf => "&",
        }
    }
}

/// A type the script defines: bpftrace's `struct NAME { type field; ... }` (fields laid out as
/// C lays them out) or `enum [NAME] { A = 1, B, ... }` (constants).
#[derive(Clone, Debug, PartialEq)]
pub enum TypeDecl {
    Struct { name: String, fields: Vec<FieldDecl>, attributes: StructAttributes, span: Span },
    Enum { name: Option<String>, values: Vec<(String, i64, Span)>, span: Span },
}

/// `__attribute__((packed))` and `__attribute__((aligned(N)))` after a script struct's `}`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StructAttributes {
    /// No padding: each field right after the one before, the struct aligned to 1 byte.
    pub packed: bool,
    /// The struct's alignment raised (or, packed, set) to N bytes.
    pub aligned: Option<u64>,
}

/// `type name;`, `type name[N];` or `type name[N][M];` in a script's struct.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldDecl {
    pub ty: TypeName,
    pub name: String,
    /// The array's lengths, outermost first; empty for a field that is not an array.
    pub array: Vec<u64>,
    /// A bitfield's width in bits (`int a:3`).
    pub bits: Option<u32>,
    pub span: Span,
}
