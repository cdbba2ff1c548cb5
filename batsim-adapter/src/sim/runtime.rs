//! Actual run times for generated jobs (`--cloud-runtime`): the thesis's cloud
//! jobs end well before their walltime, but it does not say how early, so the
//! run time is a parameter: a fixed length, a fraction of the walltime, or a
//! seeded distribution.
//!
//! Syntax (`w` suffix = fraction of the job's walltime, else seconds):
//! `walltime`, `120`, `0.1w`, `uniform:30:180`, `uniform:0.1w:0.5w`, `exp:60`, `exp:0.25w`.

use super::rng::SplitMix64;
use interstice_core::Time;
use std::fmt;
use std::str::FromStr;

/// A length in seconds or as a fraction of the walltime.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Amount {
    /// Seconds.
    Seconds(f64),
    /// Fraction of the job's walltime.
    OfWalltime(f64),
}

impl Amount {
    /// Seconds for a job of this walltime.
    pub fn seconds(self, walltime: Time) -> f64 {
        match self {
            Amount::Seconds(secs) => secs,
            Amount::OfWalltime(fraction) => fraction * walltime.as_secs_f64(),
        }
    }
}

impl FromStr for Amount {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (number, of_walltime) = match text.strip_suffix('w') {
            Some(number) => (number, true),
            None => (text.strip_suffix('s').unwrap_or(text), false),
        };
        let value: f64 = number.parse().map_err(|_| {
            format!("bad length {text:?}: expected seconds (`120`) or a walltime fraction (`0.1w`)")
        })?;
        if !value.is_finite() || value < 0.0 {
            return Err(format!("bad length {text:?}: must be a finite number >= 0"));
        }
        Ok(if of_walltime {
            Amount::OfWalltime(value)
        } else {
            Amount::Seconds(value)
        })
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Amount::Seconds(secs) => write!(f, "{secs}"),
            Amount::OfWalltime(fraction) => write!(f, "{fraction}w"),
        }
    }
}

/// How a job's actual run time is drawn from its walltime.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RuntimeSpec {
    /// Always this length.
    Fixed(Amount),
    /// Uniform between the two lengths.
    Uniform(Amount, Amount),
    /// Exponential with this mean.
    Exponential(Amount),
}

impl RuntimeSpec {
    /// The run time = the walltime (`walltime`, `1w`).
    pub const WALLTIME: RuntimeSpec = RuntimeSpec::Fixed(Amount::OfWalltime(1.0));

    /// Draw a run time for a job of this walltime (the generator is only used
    /// by distributions).
    pub fn sample(&self, walltime: Time, rng: &mut SplitMix64) -> Time {
        let secs = match *self {
            RuntimeSpec::Fixed(amount) => amount.seconds(walltime),
            RuntimeSpec::Uniform(lo, hi) => rng.uniform(lo.seconds(walltime), hi.seconds(walltime)),
            RuntimeSpec::Exponential(mean) => rng.exponential(mean.seconds(walltime)),
        };
        Time::from_secs_f64(secs.max(0.0))
    }
}

impl FromStr for RuntimeSpec {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        if text == "walltime" {
            return Ok(RuntimeSpec::WALLTIME);
        }
        let parts: Vec<&str> = text.split(':').collect();
        match parts.as_slice() {
            [single] => Ok(RuntimeSpec::Fixed(single.parse()?)),
            ["uniform", lo, hi] => Ok(RuntimeSpec::Uniform(lo.parse()?, hi.parse()?)),
            ["exp", mean] => Ok(RuntimeSpec::Exponential(mean.parse()?)),
            _ => Err(format!(
                "bad run time {text:?}: expected `walltime`, seconds (`120`), a walltime fraction (`0.1w`), \
                 `uniform:LO:HI` or `exp:MEAN`"
            )),
        }
    }
}

impl fmt::Display for RuntimeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeSpec::Fixed(amount) => write!(f, "{amount}"),
            RuntimeSpec::Uniform(lo, hi) => write!(f, "uniform:{lo}:{hi}"),
            RuntimeSpec::Exponential(mean) => write!(f, "exp:{mean}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form_and_round_trips() {
        for text in [
            "120",
            "0.1w",
            "uniform:30:180",
            "uniform:0.1w:0.5w",
            "exp:60",
            "exp:0.25w",
        ] {
            let spec: RuntimeSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
        }
        assert_eq!("walltime".parse::<RuntimeSpec>().unwrap(), RuntimeSpec::WALLTIME);
        assert_eq!(
            "90s".parse::<RuntimeSpec>().unwrap(),
            RuntimeSpec::Fixed(Amount::Seconds(90.0))
        );
    }

    #[test]
    fn rejects_garbage_with_the_syntax() {
        for text in ["", "abc", "-3", "uniform:1", "exp:x", "normal:1:2"] {
            let err = text.parse::<RuntimeSpec>().unwrap_err();
            assert!(err.contains("bad"), "{text}: {err}");
        }
    }

    #[test]
    fn samples_follow_the_spec() {
        let walltime = Time::from_secs(180);
        let mut rng = SplitMix64::new(1);
        assert_eq!(
            "0.1w".parse::<RuntimeSpec>().unwrap().sample(walltime, &mut rng),
            Time::from_secs(18)
        );
        assert_eq!(
            "42".parse::<RuntimeSpec>().unwrap().sample(walltime, &mut rng),
            Time::from_secs(42)
        );
        let uniform: RuntimeSpec = "uniform:30:60".parse().unwrap();
        let mut sum = 0.0;
        for _ in 0..10_000 {
            let secs = uniform.sample(walltime, &mut rng).as_secs_f64();
            assert!((30.0..=60.0).contains(&secs));
            sum += secs;
        }
        assert!((sum / 10_000.0 - 45.0).abs() < 1.0);
        let exp: RuntimeSpec = "exp:0.5w".parse().unwrap();
        let mean = (0..20_000)
            .map(|_| exp.sample(walltime, &mut rng).as_secs_f64())
            .sum::<f64>()
            / 20_000.0;
        assert!((mean - 90.0).abs() < 5.0, "mean {mean}");
    }
}
