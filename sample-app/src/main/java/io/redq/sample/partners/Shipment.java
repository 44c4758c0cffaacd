package io.redq.sample.partners;

/**
 * The payload of {@code notify-partner}: a paid order to ship.
 *
 * @param orderId the order
 * @author Redq team
 * @since 0.1.0
 */
public record Shipment(long orderId) {

}
