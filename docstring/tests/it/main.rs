//! codemine-docstring's integration tests: the conventions from their specifications,
//! agreement with docstring-parser 0.18 (Python) and with The Vault's own parser (the other
//! languages), the parameter-consistency rule, and inputs that must not break it.

mod consistency;
mod conventions;
mod python_reference;
mod robustness;
mod support;
mod vault_reference;
