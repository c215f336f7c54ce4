-- Every session ends by deleting its cards by cart_id (discardCards), abandoned ones included: without
-- this index each of those deletes scans the whole vault, which grows with the sessions in flight.
create index card_vault_cart on card_vault (cart_id);
