//! Workload formats: SWF, Batsim workload JSON, cloud-job injection.
