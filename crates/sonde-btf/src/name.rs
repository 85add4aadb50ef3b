//! C spellings of types, for error messages and listings: `struct task_struct *`,
//! `const char __user *`, `char[16]`, `int (*)(void)`.
//!
//! C declarators read inside-out, so the walk carries the declarator built so far
//! (`inner`) down the chain and puts the base type name in front at the end.

use crate::model::TypeId;
use crate::raw;
use crate::Btf;

/// Bounds the walk on corrupt (cyclic or fan-out) BTF; real chains are a few links.
const MAX_DEPTH: usize = 32;
const MAX_NODES: usize = 512;

impl Btf {
    /// The C spelling of a type. Functions read as declarations
    /// (`void wake_up_new_task(struct task_struct *)`); type tags as `__tag`.
    pub fn type_name(&self, id: TypeId) -> String {
        let mut budget = MAX_NODES;
        self.decl(id, String::new(), 0, &mut budget)
    }

    /// The C declaration of `name` as a `id`: `char comm[16]`, `int (*fn)(void)`.
    pub fn declaration(&self, id: TypeId, name: &str) -> String {
        let mut budget = MAX_NODES;
        self.decl(id, name.to_string(), 0, &mut budget)
    }

    fn decl(&self, id: TypeId, inner: String, depth: usize, budget: &mut usize) -> String {
        if depth >= MAX_DEPTH || *budget == 0 {
            return join("?", &inner);
        }
        *budget -= 1;
        let Some(r) = self.rec(id) else {
            return join("void", &inner);
        };
        let name = self.str_at(r.name_off);
        let to = TypeId(r.size_or_type);
        let next =
            |t: TypeId, inner: String, budget: &mut usize| self.decl(t, inner, depth + 1, budget);
        match r.kind() {
            raw::INT | raw::FLOAT | raw::TYPEDEF => join(name, &inner),
            raw::STRUCT => join(&tagged("struct", name), &inner),
            raw::UNION => join(&tagged("union", name), &inner),
            raw::ENUM | raw::ENUM64 => join(&tagged("enum", name), &inner),
            raw::FWD => join(&tagged(if r.kind_flag() { "union" } else { "struct" }, name), &inner),
            raw::PTR => {
                // A pointer to an array or function needs parentheses: `char (*)[16]`.
                let wrap =
                    self.rec(to).is_some_and(|t| matches!(t.kind(), raw::ARRAY | raw::FUNC_PROTO));
                let inner = if wrap { format!("(*{inner})") } else { format!("*{inner}") };
                next(to, inner, budget)
            }
            raw::CONST | raw::VOLATILE | raw::RESTRICT | raw::TYPE_TAG => {
                let word = match r.kind() {
                    raw::CONST => "const".to_owned(),
                    raw::VOLATILE => "volatile".to_owned(),
                    raw::RESTRICT => "restrict".to_owned(),
                    _ => format!("__{name}"),
                };
                let target_is_ptr = self.rec(to).is_some_and(|t| t.kind() == raw::PTR);
                if target_is_ptr || r.kind() == raw::TYPE_TAG {
                    // A qualified pointer reads `char *const`; tags sit next to the star
                    // they apply to: `const char __user *`.
                    next(to, join(&word, &inner), budget)
                } else {
                    format!("{word} {}", next(to, inner, budget))
                }
            }
            raw::ARRAY => next(TypeId(r.word(0)), format!("{inner}[{}]", r.word(2)), budget),
            raw::FUNC_PROTO => {
                let (params, variadic) = self.params(r);
                let mut list = Vec::new();
                for p in &params {
                    if *budget == 0 {
                        // Corrupt fan-out: stop spelling params rather than visit 65535 of them.
                        list.push("?".to_owned());
                        break;
                    }
                    list.push(next(p.ty, String::new(), budget));
                }
                if variadic {
                    list.push("...".into());
                }
                if list.is_empty() {
                    list.push("void".into());
                }
                next(to, format!("{inner}({})", list.join(", ")), budget)
            }
            raw::FUNC | raw::VAR => next(to, join(name, &inner), budget),
            raw::DECL_TAG => next(to, inner, budget),
            raw::DATASEC => join(name, &inner),
            _ => join("?", &inner),
        }
    }
}

/// `base` then the declarator, with a space unless the declarator starts with `[` or a
/// parameter list (`char[16]`, `int(void)`) but keeping one before `(*` (`int (*)(void)`).
fn join(base: &str, inner: &str) -> String {
    if inner.is_empty() {
        base.to_owned()
    } else if inner.starts_with('[') || (inner.starts_with('(') && !inner.starts_with("(*")) {
        format!("{base}{inner}")
    } else {
        format!("{base} {inner}")
    }
}

fn tagged(keyword: &str, name: &str) -> String {
    if name.is_empty() {
        format!("{keyword} {{...}}")
    } else {
        format!("{keyword} {name}")
    }
}
