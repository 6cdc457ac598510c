//! The timing model (in progress): for now, NVIDIA's occupancy rules over
//! per-architecture limits. The cycle model (scheduler, dispatch, latency,
//! memory) builds on these. Depends on nothing but itself: it knows neither
//! the front end nor the JIT.

pub mod occupancy;
