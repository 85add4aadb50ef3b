//! Lines -> call trees. The tracer interleaves CPUs and tasks, and a call that sleeps goes on
//! later, maybe on another CPU: open calls are kept per task (pid), and lines that name no task
//! (interrupt marks, lost events) apply to the task last seen on their CPU.

use crate::line::{Line, Task};
use std::collections::HashMap;

/// One function call and what it called.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    /// Duration including children; None if its return was never seen.
    pub total_ns: Option<u64>,
    /// Entered from an interrupt that arrived during the call.
    pub irq: bool,
    /// Its return value as the tracer printed it (funcgraph-retval, 6.5+: `0x0`, `-22`).
    pub retval: Option<String>,
    pub children: Vec<Node>,
}

impl Node {
    fn new(name: String, irq: bool) -> Node {
        Node { name, total_ns: None, irq, retval: None, children: Vec::new() }
    }

    /// Time spent in this function itself: its total less its children's.
    pub fn own_ns(&self) -> u64 {
        let kids: u64 = self.children.iter().map(|c| c.total_ns.unwrap_or(0)).sum();
        self.total_ns.unwrap_or(0).saturating_sub(kids)
    }
}

/// One complete call of the traced function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub task: Task,
    /// CPUs the call ran on, in order of first appearance.
    pub cpus: Vec<u32>,
    /// Times another task took the CPU during the call (`=>` marks naming this task).
    pub switches: u32,
    pub root: Node,
}

#[derive(Default)]
struct Open {
    stack: Vec<Node>,
    cpus: Vec<u32>,
    switches: u32,
}

/// Feeds lines in, hands complete calls out.
#[derive(Default)]
pub struct Builder {
    /// The traced function, when known: only it starts a call.
    root: Option<String>,
    open: HashMap<u32, Open>,
    comms: HashMap<u32, String>,
    /// The task last seen on each CPU, and whether an interrupt is in progress there.
    on_cpu: HashMap<u32, (Option<u32>, bool)>,
    /// Entries the ring buffer lost (`[LOST N EVENTS]`).
    pub lost_events: u64,
    /// Calls abandoned because entries of theirs were lost.
    pub broken_calls: u64,
}

impl Builder {
    pub fn new() -> Builder {
        Builder::default()
    }

    /// A builder for the calls of `function` (set_graph_function): a top-level line naming
    /// any other function is the tail of a call whose start was not seen. The kernel prints
    /// such tails at depth 0 when it begins tracing a task in the middle of the function
    /// (seen on 6.1: a lone `__rcu_read_unlock();` from a task that was inside vfs_read).
    pub fn for_function(function: &str) -> Builder {
        Builder { root: Some(function.to_string()), ..Builder::default() }
    }

    /// A line at the top with nothing open may start a call: is it the traced function?
    fn starts_call(&self, name: &str) -> bool {
        self.root.as_deref().is_none_or(|r| r == name)
    }

    /// One line; returns the call it completed, if any.
    pub fn push(&mut self, line: &Line) -> Option<Call> {
        match line {
            Line::Entry { cpu, task, depth, name } => {
                let (pid, irq) = self.task_on(*cpu, task.as_ref())?;
                // A new call starts only at the top: deeper lines with nothing open belong to a
                // call whose start was not seen (read began mid-call, or entries were lost).
                if !self.open.contains_key(&pid) && (*depth > 0 || !self.starts_call(name)) {
                    return None;
                }
                let o = self.open.entry(pid).or_default();
                note_cpu(o, *cpu);
                o.stack.push(Node::new(name.clone(), irq));
                None
            }
            Line::Leaf { cpu, task, depth, ns, name, retval } => {
                let (pid, irq) = self.task_on(*cpu, task.as_ref())?;
                let starts = *depth == 0 && self.starts_call(name);
                let mut leaf = Node::new(name.clone(), irq);
                leaf.total_ns = Some(*ns);
                leaf.retval = retval.clone();
                match self.open.get_mut(&pid) {
                    Some(o) => {
                        note_cpu(o, *cpu);
                        o.stack.last_mut()?.children.push(leaf);
                        None
                    }
                    // A top-level leaf with nothing open is a whole call of a function with
                    // no children.
                    None if starts => Some(Call {
                        task: self.task(pid),
                        cpus: vec![*cpu],
                        switches: 0,
                        root: leaf,
                    }),
                    None => None,
                }
            }
            Line::Exit { cpu, task, ns, name, retval } => {
                let (pid, _) = self.task_on(*cpu, task.as_ref())?;
                let o = self.open.get_mut(&pid)?;
                note_cpu(o, *cpu);
                // With funcgraph-tail the closer names its function: skip over calls whose
                // return was lost rather than closing the wrong one.
                if let Some(n) = name {
                    let at = o.stack.iter().rposition(|f| &f.name == n)?;
                    while o.stack.len() > at + 1 {
                        let lost = o.stack.pop()?;
                        o.stack.last_mut()?.children.push(lost);
                    }
                }
                let mut done = o.stack.pop()?;
                done.total_ns = Some(*ns);
                done.retval = retval.clone();
                match o.stack.last_mut() {
                    Some(parent) => {
                        parent.children.push(done);
                        None
                    }
                    None => {
                        let (cpus, switches) = (std::mem::take(&mut o.cpus), o.switches);
                        self.open.remove(&pid);
                        Some(Call { task: self.task(pid), cpus, switches, root: done })
                    }
                }
            }
            Line::IrqEnter { cpu } => {
                self.on_cpu.entry(*cpu).or_default().1 = true;
                None
            }
            Line::IrqExit { cpu } => {
                self.on_cpu.entry(*cpu).or_default().1 = false;
                None
            }
            Line::Switch { cpu, from, to } => {
                if let Some(f) = from.as_ref().and_then(|f| self.open.get_mut(&f.pid)) {
                    f.switches += 1;
                }
                self.on_cpu.entry(*cpu).or_default().0 = to.as_ref().map(|t| t.pid);
                None
            }
            Line::Lost { cpu, events } => {
                self.lost_events += events;
                // Whatever the task on this CPU had open may now miss entries or returns.
                if let Some(pid) = self.on_cpu.get(cpu).and_then(|c| c.0) {
                    if self.open.remove(&pid).is_some() {
                        self.broken_calls += 1;
                    }
                }
                None
            }
            Line::Exec { .. } | Line::Other => None,
        }
    }

    /// Calls still open (their return not seen yet).
    pub fn in_flight(&self) -> usize {
        self.open.len()
    }

    /// The pid a line belongs to, remembering it as the CPU's current task, and whether an
    /// interrupt is in progress on the CPU.
    fn task_on(&mut self, cpu: u32, task: Option<&Task>) -> Option<(u32, bool)> {
        let slot = self.on_cpu.entry(cpu).or_default();
        if let Some(t) = task {
            slot.0 = Some(t.pid);
            self.comms.entry(t.pid).or_insert_with(|| t.comm.clone());
        }
        let irq = slot.1;
        Some((slot.0?, irq))
    }

    fn task(&self, pid: u32) -> Task {
        Task { comm: self.comms.get(&pid).cloned().unwrap_or_default(), pid }
    }
}

fn note_cpu(o: &mut Open, cpu: u32) {
    if !o.cpus.contains(&cpu) {
        o.cpus.push(cpu);
    }
}

#[cfg(test)]
mod tests;
