//! PTX's type and state-space vocabulary (PTX ISA §5.1 state spaces, §5.2 types).
//!
//! Each enum maps one-to-one to the spelling PTX uses after the dot, through
//! `from_name`/`name`, which the parser and the printer share.

/// Declares a fieldless enum whose variants map one-to-one to PTX spellings.
macro_rules! spelled_enum {
    ($(#[$m:meta])* pub enum $name:ident { $($variant:ident => $text:literal,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($variant,)* }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The variant spelled `text` (without the leading dot).
            pub fn from_name(text: &str) -> Option<$name> {
                match text {
                    $($text => Some($name::$variant),)*
                    _ => None,
                }
            }

            /// The PTX spelling, without the leading dot.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
pub(crate) use spelled_enum;

spelled_enum! {
    /// A fundamental PTX type (§5.2.1), including packed and alternate float formats.
    pub enum ScalarType {
        Pred => "pred",
        B8 => "b8", B16 => "b16", B32 => "b32", B64 => "b64", B128 => "b128",
        U8 => "u8", U16 => "u16", U32 => "u32", U64 => "u64",
        S8 => "s8", S16 => "s16", S32 => "s32", S64 => "s64",
        F16 => "f16", F16x2 => "f16x2", Bf16 => "bf16", Bf16x2 => "bf16x2",
        U16x2 => "u16x2", S16x2 => "s16x2",
        F32 => "f32", F64 => "f64", Tf32 => "tf32",
        E4m3 => "e4m3", E5m2 => "e5m2", E4m3x2 => "e4m3x2", E5m2x2 => "e5m2x2",
        E2m1 => "e2m1", E2m1x2 => "e2m1x2", E2m3x2 => "e2m3x2", E3m2x2 => "e3m2x2",
        Ue8m0x2 => "ue8m0x2",
        U4 => "u4", S4 => "s4", B1 => "b1",
    }
}

impl ScalarType {
    /// Size in bytes as stored in memory (packed sub-byte types round up).
    pub fn size_bytes(self) -> u32 {
        use ScalarType::*;
        match self {
            Pred | B1 | U4 | S4 | E2m1 => 1,
            B8 | U8 | S8 | E4m3 | E5m2 => 1,
            B16 | U16 | S16 | F16 | Bf16 | E4m3x2 | E5m2x2 | E2m1x2 | E2m3x2 | E3m2x2 | Ue8m0x2 => {
                2
            }
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | Tf32 | U16x2 | S16x2 => 4,
            B64 | U64 | S64 | F64 => 8,
            B128 => 16,
        }
    }

    pub fn is_float(self) -> bool {
        use ScalarType::*;
        matches!(self, F16 | F16x2 | Bf16 | Bf16x2 | F32 | F64 | Tf32)
    }

    pub fn is_signed(self) -> bool {
        use ScalarType::*;
        matches!(self, S8 | S16 | S32 | S64 | S4 | S16x2)
    }
}

spelled_enum! {
    /// A state space (§5.1), with the `::` sub-spaces of PTX 7.8+.
    pub enum StateSpace {
        Reg => "reg",
        Sreg => "sreg",
        Const => "const",
        Global => "global",
        Local => "local",
        Param => "param",
        ParamEntry => "param::entry",
        ParamFunc => "param::func",
        Shared => "shared",
        SharedCta => "shared::cta",
        SharedCluster => "shared::cluster",
        Tex => "tex",
    }
}

spelled_enum! {
    /// Linking directives (§11.6): visibility of a module-scope symbol.
    pub enum Linkage {
        Visible => "visible",
        Extern => "extern",
        Weak => "weak",
        Common => "common",
    }
}
