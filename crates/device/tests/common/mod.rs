//! Helpers shared by the device integration tests.
#![allow(dead_code, reason = "each test file uses a subset")]

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// Drives a future that completes at once (the file-backed device does its work at call time).
pub fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("zone file device futures complete immediately"),
    }
}
