//! Copies reached through the pointers of a copied struct: a msghdr's name and iovec array,
//! its ancillary data, and the first iovecs' buffers (sendmsg/recvmsg, writev/readv), with `-s`
//! for the buffers copied longer than it. x86-64 layouts: msghdr's name at 0, its iov at 16,
//! iovlen at 24, control at 32 and controllen at 40; an iovec's base at 0 and length at 8.

use super::Plan;
use crate::memory::{self, Size, EPOLL_EVENT, IOVEC, IOV_COPIED, MESSAGE, SOCKADDR};
use crate::program::TAG_STRING;
use std::fmt::Write;

impl Plan<'_> {
    /// After the copy of `ptr` (a msghdr, an iovec array, a message): the copies it leads to.
    /// `limit`: at entry the number of iovecs (an iovec array's next argument), at exit the
    /// bytes the call filled (its result), which say how many buffers hold anything.
    pub(super) fn nested(&self, size: Size, ptr: &str, at_exit: bool, limit: &str) -> String {
        let tag = |k: usize| TAG_STRING + memory::nested_index(at_exit, k) as u64;
        let shown = format!(" print({}, tid, {});", tag(memory::NESTED_SHOWN), self.buffer_size);
        let (mut out, limit) = match size {
            // Its copy at entry is the one shown.
            Size::Message if at_exit => return String::new(),
            Size::Message => return shown,
            // As many events as the call returned, in a range (see copies.rs): the first is
            // the argument's copy.
            Size::EpollEvents => {
                let each = format!(
                    "if ($el <= $ek) {{ break; }} \
                     print({} + $ek, tid, mem($eb + $ek * {EPOLL_EVENT}, {EPOLL_EVENT}));",
                    tag(memory::NESTED_BUFFERS) - 1
                );
                let walk = self.bounded(("$ek", "$em"), 1..memory::EPOLL_EVENTS_COPIED, &each);
                return format!(" $el = {limit}; $eb = (uint64){ptr}; {walk}");
            }
            Size::SigmaskPair => {
                return format!(
                    " $sp = (uint64 *)(uint64){ptr}; if ($sp[0] != 0) {{ print({}, tid, mem($sp[0], 8)); }}",
                    tag(memory::NESTED_SIGSET)
                )
            }
            Size::Msghdr => {
                let mut out = format!(
                    "{shown} $mh = (uint64 *)(uint64){ptr}; \
                     if ($mh[0] != 0) {{ print({}, tid, mem($mh[0], {SOCKADDR})); }} $ia = $mh[2];",
                    tag(memory::NESTED_NAME)
                );
                let _ = write!(
                    out,
                    " if ($ia != 0) {{ print({}, tid, mem($ia, {})); }} \
                     if ($mh[4] != 0 && $mh[5] > 0) {{ print({}, tid, mem($mh[4], {})); }}",
                    tag(memory::NESTED_IOV),
                    IOVEC * IOV_COPIED,
                    tag(memory::NESTED_CONTROL),
                    memory::CONTROL
                );
                let limit = match at_exit {
                    true => limit.to_string(),
                    false => "(int64)$mh[3]".to_string(),
                };
                (out, limit)
            }
            // The array itself is the argument's copy.
            Size::Iovec => (format!("{shown} $ia = (uint64){ptr};"), limit.to_string()),
            _ => return String::new(),
        };
        // At exit each buffer takes its length from what is left; at entry each counts one.
        let step = if at_exit { "$iv[1]" } else { "1" };
        // The first buffer goes on in chunks, as far as its length (and at exit the bytes
        // filled) reach.
        let chunks: String = (1..memory::MESSAGE_CHUNKS)
            .map(|j| {
                let from = j * MESSAGE;
                let filled = if at_exit { format!(" && $il > {from}") } else { String::new() };
                format!(
                    " if ($iv[1] > {from}{filled}) {{ print({}, tid, mem($iv[0] + {from}, {MESSAGE})); }}",
                    tag(memory::NESTED_CHUNKS + j - 1)
                )
            })
            .collect();
        // The others in a loop (see copies.rs); `$il` only falls, so the first empty one ends
        // the walk.
        let first = tag(memory::NESTED_BUFFERS);
        let each = format!(
            "if ($il <= 0) {{ break; }} $iv = (uint64 *)($ia + $ik * {IOVEC}); \
             if ($iv[0] != 0) {{ print({first} + $ik, tid, mem($iv[0], {MESSAGE})); }} \
             $il = $il - (int64){step};"
        );
        let _ = write!(
            out,
            " $il = {limit}; if ($ia != 0) {{ if ($il > 0) {{ $iv = (uint64 *)$ia; \
             if ($iv[0] != 0) {{ print({first}, tid, mem($iv[0], {MESSAGE}));{chunks} }} \
             $il = $il - (int64){step}; }} {}",
            self.bounded(("$ik", "$im"), 1..IOV_COPIED, &each)
        );
        out.push_str(" }");
        out
    }
}
