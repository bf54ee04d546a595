//! The random draws of a self-play root: Gumbel noise for the Gumbel root's candidates and
//! Dirichlet noise mixed into PUCT root priors.

use rand::Rng;

use crate::config::SearchConfig;

/// A standard Gumbel(0, 1) sample: -ln(-ln u), u uniform in [1e-7, 1).
pub fn gumbel_noise<R: Rng>(rng: &mut R) -> f32 {
    let u: f32 = rng.gen_range(1e-7f32..1.0);
    -(-u.ln()).ln()
}

/// Mixes Dirichlet noise into `prior` (one probability per root move, summing to 1; it
/// still does after): `prior = (1 - noise_fraction) * prior + noise_fraction * noise`,
/// with `alpha = dirichlet_total_alpha / moves` per move. Nothing is drawn for fewer than
/// two moves or a zero `noise_fraction`.
pub fn mix_dirichlet_noise<R: Rng>(prior: &mut [f32], config: &SearchConfig, rng: &mut R) {
    let k = prior.len();
    if k < 2 || config.noise_fraction == 0.0 {
        return;
    }
    let alpha = config.dirichlet_total_alpha / k as f32;
    let noise: Vec<f32> = (0..k).map(|_| gamma_sample(alpha, rng)).collect();
    let sum: f32 = noise.iter().sum();
    if sum <= 0.0 || !sum.is_finite() {
        return;
    }
    for (p, n) in prior.iter_mut().zip(&noise) {
        *p = (1.0 - config.noise_fraction) * *p + config.noise_fraction * n / sum;
    }
}

/// A Gamma(alpha, 1) sample (Marsaglia and Tsang; boosted for alpha < 1).
fn gamma_sample<R: Rng>(alpha: f32, rng: &mut R) -> f32 {
    if alpha < 1.0 {
        let u: f32 = rng.gen_range(1e-7f32..1.0);
        return gamma_sample(alpha + 1.0, rng) * u.powf(1.0 / alpha);
    }
    let d = alpha - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = standard_normal(rng);
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u: f32 = rng.gen_range(1e-7f32..1.0);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// A standard normal sample (Box-Muller, one of the pair).
fn standard_normal<R: Rng>(rng: &mut R) -> f32 {
    let u1: f32 = rng.gen_range(1e-7f32..1.0);
    let u2: f32 = rng.gen();
    (-2.0 * u1.ln()).sqrt() * (std::f32::consts::TAU * u2).cos()
}
