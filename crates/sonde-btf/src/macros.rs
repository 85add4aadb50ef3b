//! Members C reaches through a macro, not a member of that name: `sk->sk_dport` is
//! `sk->__sk_common.skc_dport` (include/net/sock.h's `#define sk_dport __sk_common.skc_dport`,
//! and the like for inet_sock and inet_timewait_sock). BTF has only the real path, so a "did you
//! mean" offers it.

use crate::{Btf, TypeId};

/// (macro prefix, the members it stands for, the last member's prefix): `sk_X` is
/// `__sk_common.skc_X`.
const FAMILIES: [(&str, &[&str], &str); 3] = [
    ("sk_", &["__sk_common"], "skc_"),
    ("inet_", &["sk", "__sk_common"], "skc_"),
    ("tw_", &["__tw_common"], "skc_"),
];

impl Btf {
    /// The member path macro `name` stands for in struct `id` (`__sk_common.skc_dport` for
    /// `sk_dport` in `struct sock`), if `id` has it.
    pub fn member_macro(&self, id: TypeId, name: &str) -> Option<String> {
        FAMILIES.iter().find_map(|(prefix, path, inner)| {
            let rest = name.strip_prefix(prefix)?;
            let last = format!("{inner}{rest}");
            let mut at = id;
            for step in path.iter().copied().chain(std::iter::once(last.as_str())) {
                at = self.member(at, step)?.ty;
            }
            Some(format!("{}.{last}", path.join(".")))
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::builder::Builder;
    use crate::{Btf, NamedKind};

    #[test]
    fn socket_macros_name_their_members() {
        let mut b = Builder::new();
        let u16_ = b.int("unsigned short", 2, false);
        let be16 = b.typedef("__be16", u16_);
        let common = b.struct_("sock_common", 8, &[("skc_dport", be16, 0), ("skc_num", u16_, 16)]);
        let sock = b.struct_("sock", 16, &[("__sk_common", common, 0)]);
        b.struct_("inet_sock", 16, &[("sk", sock, 0)]);
        let btf = Btf::from_bytes(b.build()).unwrap();
        let sock = btf.find_named(NamedKind::Struct, "sock").unwrap();
        let inet = btf.find_named(NamedKind::Struct, "inet_sock").unwrap();
        assert_eq!(btf.member_macro(sock, "sk_dport").as_deref(), Some("__sk_common.skc_dport"));
        assert_eq!(btf.member_macro(sock, "sk_num").as_deref(), Some("__sk_common.skc_num"));
        assert_eq!(btf.member_macro(sock, "sk_daddr"), None);
        assert_eq!(btf.member_macro(sock, "dport"), None);
        assert_eq!(
            btf.member_macro(inet, "inet_dport").as_deref(),
            Some("sk.__sk_common.skc_dport")
        );
    }
}
