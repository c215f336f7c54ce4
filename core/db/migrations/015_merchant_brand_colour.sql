-- The merchant's brand colour (#rrggbb, lower case), set by an operator or the merchant's dashboard;
-- null: the page's own colours. The page derives its accent, focus and hover colours from it
-- (core/brand/brand-colours.ts), darkened when it is too light to read.
alter table merchants add column brand_colour text check (brand_colour ~ '^#[0-9a-f]{6}$');
