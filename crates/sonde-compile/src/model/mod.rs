//! The program model every other layer shares and none of them owns: sonde's types, the sites
//! a program attaches to, and the typed program (`tir`) the checker makes, the providers answer
//! in and lowering reads. It uses nothing else of the crate.

pub mod site;
pub mod tir;
pub mod types;
