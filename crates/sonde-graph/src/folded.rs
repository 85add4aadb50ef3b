//! Folded stacks (`a;b;c 1234`, one line per distinct path), the input of every flame-graph
//! tool. The number is the time spent in the last frame itself, in nanoseconds, so the lines of
//! one call add up to its total.

use crate::tree::Node;
use std::collections::BTreeMap;

/// Paths to their summed own time; sums over many calls when fed several roots.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Folded {
    stacks: BTreeMap<String, u64>,
}

impl Folded {
    pub fn new() -> Folded {
        Folded::default()
    }

    /// Add one call tree.
    pub fn add(&mut self, root: &Node) {
        let mut path = String::new();
        self.walk(root, &mut path);
    }

    /// Add a path (frames outermost first) with a count, as a stack-keyed map entry gives.
    pub fn add_stack<S: AsRef<str>>(&mut self, frames: &[S], n: u64) {
        let path: Vec<String> = frames.iter().map(|f| frame(f.as_ref())).collect();
        *self.stacks.entry(path.join(";")).or_default() += n;
    }

    fn walk(&mut self, node: &Node, path: &mut String) {
        let len = path.len();
        if !path.is_empty() {
            path.push(';');
        }
        path.push_str(&frame(&node.name));
        let own = node.own_ns();
        if own > 0 || node.children.is_empty() {
            *self.stacks.entry(path.clone()).or_default() += own;
        }
        for c in &node.children {
            self.walk(c, path);
        }
        path.truncate(len);
    }

    pub fn is_empty(&self) -> bool {
        self.stacks.is_empty()
    }

    pub fn total(&self) -> u64 {
        self.stacks.values().sum()
    }

    /// The lines, sorted by path, without trailing newlines.
    pub fn lines(&self) -> impl Iterator<Item = String> + '_ {
        self.stacks.iter().map(|(k, v)| format!("{k} {v}"))
    }

    /// All lines, each ending in a newline.
    pub fn text(&self) -> String {
        self.lines().map(|l| l + "\n").collect()
    }
}

/// A frame name as folded stacks allow it: `;` separates frames and the last space starts the
/// count, so neither may appear in a name (`ext4_read [ext4]` becomes `ext4_read_[ext4]`).
fn frame(name: &str) -> String {
    name.trim().replace([';', ' '], "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, ns: u64, children: Vec<Node>) -> Node {
        Node { name: name.into(), total_ns: Some(ns), irq: false, retval: None, children }
    }

    #[test]
    fn own_times_add_up_to_the_total() {
        let t =
            node("a", 100, vec![node("b", 30, vec![node("c", 10, vec![])]), node("c", 20, vec![])]);
        let mut f = Folded::new();
        f.add(&t);
        assert_eq!(f.text(), "a 50\na;b 20\na;b;c 10\na;c 20\n");
        assert_eq!(f.total(), 100);
    }

    #[test]
    fn stacks_sum_and_names_are_made_safe() {
        let mut f = Folded::new();
        f.add_stack(&["start_kernel", "x;y", "read [ext4]"], 2);
        f.add_stack(&["start_kernel", "x;y", "read [ext4]"], 3);
        assert_eq!(f.text(), "start_kernel;x_y;read_[ext4] 5\n");
    }
}
