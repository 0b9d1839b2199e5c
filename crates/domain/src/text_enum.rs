//! Enums whose values travel as text (the API's JSON, the database's columns): `as_str`,
//! `FromStr`, `Display` and the list of every value, from one declaration.

macro_rules! text_enum {
    ($ty:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        impl $ty {
            /// Every value, in declaration order (the sort order where there is one).
            pub const ALL: &'static [$ty] = &[$($ty::$variant),*];

            /// The value in the API and the database.
            pub fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $text),* }
            }
        }
        impl std::str::FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s { $($text => Ok($ty::$variant),)* _ => Err(format!("unknown {} {s:?}", stringify!($ty))) }
            }
        }
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
