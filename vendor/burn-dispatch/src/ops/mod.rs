mod activation;
mod bool_tensor;
mod distributed;
mod int_tensor;
mod module;
mod qtensor;
mod tensor;
mod transaction;
pub(crate) mod transfer;
