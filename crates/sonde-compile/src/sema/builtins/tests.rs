//! The registry holds together: one entry a name, checks that fit the forms, argument kinds
//! whose form can be checked by position.

use super::spec::{Check, Form, Returns};
use super::table::{all, TABLES};

#[test]
fn a_name_means_one_builtin_of_each_place() {
    let mut variables = std::collections::HashSet::new();
    let mut calls = std::collections::HashSet::new();
    for s in all() {
        let seen =
            if matches!(s.form, Form::Variable { .. }) { &mut variables } else { &mut calls };
        for n in s.names() {
            assert!(seen.insert(n), "`{}` is registered twice", n);
        }
    }
}

#[test]
fn each_entry_is_checked_as_its_form_says() {
    for s in all() {
        let fits = match (s.form, &s.check) {
            (Form::Variable { .. }, Check::Builtin(_)) => s.fixed_type().is_some(),
            (Form::Variable { .. }, Check::Var(_)) => true,
            (Form::Function, Check::Value(_)) => !matches!(s.returns, Returns::Nothing),
            (Form::Statement, Check::Stmt(_)) => matches!(s.returns, Returns::Nothing),
            (Form::Aggregation, Check::Agg(_)) => true,
            _ => false,
        };
        assert!(fits, "{}: its check, form and result disagree", s.name);
    }
}

#[test]
fn forms_are_checked_where_the_position_is_sure() {
    for s in all() {
        let has_form = s.params.iter().any(|p| p.kind.is_form());
        let optional_last = s.params.windows(2).all(|w| !w[0].optional || w[1].optional);
        assert!(!has_form || optional_last, "{}: an argument's position is not sure", s.name);
        let repeated = s.params.iter().position(|p| p.repeats);
        assert!(repeated.is_none_or(|i| i + 1 == s.params.len()), "{}: repeats inside", s.name);
    }
}

#[test]
fn every_entry_is_documented() {
    for (title, specs) in TABLES {
        for s in specs {
            assert!(s.doc.ends_with('.'), "{} {}: one sentence, please", title, s.name);
            assert!(!s.example.is_empty(), "{}: no example", s.name);
            let call = !matches!(s.form, Form::Variable { .. });
            assert!(!call || !s.takes.is_empty(), "{}: no usage sentence", s.name);
        }
    }
}
