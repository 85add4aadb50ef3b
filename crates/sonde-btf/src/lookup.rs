//! Finding functions and named types by name.

use crate::model::{Func, NamedKind, TypeId};
use crate::raw;
use crate::Btf;

impl Btf {
    /// The kernel function `name`, with params and return type resolved. When BTF holds
    /// several FUNCs of that name (static functions in different files), the first wins.
    pub fn find_func(&self, name: &str) -> Option<Func> {
        self.ids_named(name).into_iter().find_map(|id| self.func(id))
    }

    /// The type named `name` of the given kind: `find_named(NamedKind::Struct, "task_struct")`
    /// for `struct task_struct`, `(Typedef, "pid_t")`, `(Int, "unsigned int")`. Ids of
    /// definitions come before forward declarations; otherwise the lowest id wins.
    pub fn find_named(&self, kind: NamedKind, name: &str) -> Option<TypeId> {
        let ids = self.ids_named(name);
        let kind_at = |id: TypeId| self.rec(id).map_or(raw::UNKN, |r| r.kind());
        let accepts = |k: u8| match kind {
            NamedKind::Struct => k == raw::STRUCT,
            NamedKind::Union => k == raw::UNION,
            NamedKind::Enum => k == raw::ENUM || k == raw::ENUM64,
            NamedKind::Typedef => k == raw::TYPEDEF,
            NamedKind::Int => k == raw::INT,
            NamedKind::Float => k == raw::FLOAT,
            NamedKind::Any => matches!(
                k,
                raw::INT
                    | raw::STRUCT
                    | raw::UNION
                    | raw::ENUM
                    | raw::ENUM64
                    | raw::TYPEDEF
                    | raw::FLOAT
            ),
        };
        let found = ids.iter().copied().find(|&id| accepts(kind_at(id)));
        if found.is_none() && kind == NamedKind::Any {
            return ids.into_iter().find(|&id| kind_at(id) == raw::FWD);
        }
        found
    }

    /// The kernel variable `name` (a VAR: BTF lists per-CPU variables, and others with
    /// CONFIG_DEBUG_INFO_BTF's global variables): its id and its type's.
    pub fn find_var(&self, name: &str) -> Option<(TypeId, TypeId)> {
        self.ids_named(name).into_iter().find_map(|id| match self.kind(id) {
            crate::model::Kind::Var { ty, .. } => Some((id, ty)),
            _ => None,
        })
    }

    /// Is variable `var` in the per-CPU section (`.data..percpu`)?
    pub fn is_percpu_var(&self, var: TypeId) -> bool {
        let sections = self.ids_named(".data..percpu").into_iter().map(|id| self.kind(id));
        sections
            .filter_map(|k| match k {
                crate::model::Kind::Datasec { vars, .. } => Some(vars),
                _ => None,
            })
            .any(|vars| vars.iter().any(|v| v.ty == var))
    }

    /// Every function (FUNC) name with its id, in id order: what fentry/fexit can attach to.
    /// For a module's split BTF this includes vmlinux's functions first; filter on
    /// `id >= first_id()` for the module's own.
    pub fn funcs(&self) -> impl Iterator<Item = (&str, TypeId)> + '_ {
        self.layers().flat_map(move |l| {
            l.funcs
                .iter()
                .map(move |&id| (l.rec(id).map_or("", |r| self.str_at(r.name_off)), TypeId(id)))
        })
    }

    /// Every typedef whose name starts with `prefix`, with its id, in id order: one pass over
    /// the types, for listing many (the `btf_trace_NAME` typedefs behind raw tracepoints),
    /// where a lookup by name each scans the string table each time.
    pub fn typedefs_with_prefix(&self, prefix: &str) -> Vec<(String, TypeId)> {
        let mut out = Vec::new();
        for layer in self.layers() {
            for (id, name_off) in layer.name_offsets() {
                let name = self.str_at(name_off);
                if name.starts_with(prefix)
                    && layer.rec(id).is_some_and(|r| r.kind() == raw::TYPEDEF)
                {
                    out.push((name.to_string(), TypeId(id)));
                }
            }
        }
        out
    }

    /// Names in the string table that start with `prefix`, sorted and without repeats: one scan
    /// (~1 ms for vmlinux), for names BTF has no index of, such as the `btf_trace_NAME` typedefs
    /// behind raw tracepoints. A name found here may still be of any kind: look it up to know.
    pub fn names_with_prefix(&self, prefix: &str) -> Vec<String> {
        let mut needle = Vec::with_capacity(prefix.len() + 1);
        needle.push(0);
        needle.extend_from_slice(prefix.as_bytes());
        let mut out: Vec<String> = self
            .layers()
            .flat_map(|l| {
                let strings = l.strings();
                memchr::memmem::find_iter(strings, &needle)
                    .filter_map(move |at| {
                        let rest = &strings[at + 1..];
                        let end = memchr::memchr(0, rest)?;
                        std::str::from_utf8(&rest[..end]).ok()
                    })
                    .map(String::from)
                    .collect::<Vec<_>>()
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The enumerator (a kernel enum's constant) named `name`, as its value and its enum's id:
    /// `TCP_FIN_WAIT1` in `enum { TCP_ESTABLISHED = 1, ... }`. One scan of the enums.
    pub fn enumerator(&self, name: &str) -> Option<(i64, TypeId)> {
        (self.first_id_of_all()..=self.max_id().0).find_map(|id| {
            let r = self.rec(TypeId(id))?;
            if r.kind() != raw::ENUM && r.kind() != raw::ENUM64 {
                return None;
            }
            (0..r.vlen())
                .find(|&i| self.str_at(crate::decode::enum_name_off(r, i)) == name)
                .map(|i| (crate::decode::enum_value(r, i), TypeId(id)))
        })
    }

    /// The first id of the base BTF (1), for scans over every type.
    fn first_id_of_all(&self) -> u32 {
        self.layers().next().map_or(1, |l| l.first_id)
    }

    /// How many FUNCs `funcs()` yields (collected while indexing, so free).
    pub fn func_count(&self) -> usize {
        self.layers().map(|l| l.funcs.len()).sum()
    }
}
