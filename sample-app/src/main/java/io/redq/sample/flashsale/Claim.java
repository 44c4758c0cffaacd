package io.redq.sample.flashsale;

/**
 * The payload of {@code claim-flash-item}: a buyer claims one item of a flash sale.
 *
 * @param sku the item on sale
 * @param buyer who claims it
 * @author Redq team
 * @since 0.1.0
 */
public record Claim(String sku, String buyer) {

}
