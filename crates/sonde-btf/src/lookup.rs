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

    /// How many FUNCs `funcs()` yields (collected while indexing, so free).
    pub fn func_count(&self) -> usize {
        self.layers().map(|l| l.funcs.len()).sum()
    }
}
